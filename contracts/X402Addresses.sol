// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

// Where the x402 contracts stand: the canonical addresses the x402 EVM package (@x402/evm) names,
// the same on every chain, at which the devnet places ours (decision 0073). Each contract refers
// to the others by these constants, so code copied there with anvil_setCode needs no constructor
// and no immutables.

// Uniswap's Permit2.
address constant PERMIT2_ADDRESS = 0x000000000022D473030F116dDEE9F6B43aC78BA3;
// x402's upto proxy, the Permit2 spender of the upto scheme.
address constant X402_UPTO_PERMIT2_PROXY_ADDRESS = 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002;
// x402's batch-settlement contract (channels, vouchers, claims, refunds).
address constant BATCH_SETTLEMENT_ADDRESS = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;
// Pulls a batch-settlement deposit by an EIP-3009 receiveWithAuthorization.
address constant ERC3009_DEPOSIT_COLLECTOR_ADDRESS = 0x4020806089470a89826cB9fB1f4059150b550004;
// Pulls a batch-settlement deposit by a Permit2 witness transfer.
address constant PERMIT2_DEPOSIT_COLLECTOR_ADDRESS = 0x4020425FAf3B746C082C2f942b4E5159887B0005;
