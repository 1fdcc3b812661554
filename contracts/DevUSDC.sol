// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DevStablecoin} from "./DevStablecoin.sol";

/// @title DevUSDC — an EIP-3009 USDC for local devnets, at the canonical USDC address of each
/// network, with the name the real USDC has on that chain ("USD Coin" on Base, "USDC" on Base
/// Sepolia) and version "2".
contract DevUSDC is DevStablecoin {
    function name() public view override returns (string memory) {
        return block.chainid == 8453 ? "USD Coin" : "USDC";
    }

    function symbol() public pure override returns (string memory) {
        return "USDC";
    }
}
