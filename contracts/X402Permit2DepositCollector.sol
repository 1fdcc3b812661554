// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {Permit2} from "./Permit2.sol";
import {BATCH_SETTLEMENT_ADDRESS, PERMIT2_ADDRESS} from "./X402Addresses.sol";
import {IDepositCollector} from "./X402BatchSettlement.sol";

/// @title X402Permit2DepositCollector — pulls a batch-settlement deposit by the payer's Permit2
/// witness transfer (this collector the spender, the witness DepositWitness(bytes32 channelId)),
/// straight to the batch-settlement contract (decision 0073), as the x402 EVM package's batch-settlement
/// client signs it and facilitator encodes it: collectorData = abi.encode(nonce, deadline,
/// permit2Signature, eip2612PermitData), the last empty or abi.encode(value, deadline, v, r, s)
/// of an EIP-2612 permit letting Permit2 spend the token (tried; an earlier approval may stand).
/// @notice Only the batch-settlement contract may call it (see X402Erc3009DepositCollector).
contract X402Permit2DepositCollector is IDepositCollector {
    string public constant WITNESS_TYPE_STRING =
        "DepositWitness witness)DepositWitness(bytes32 channelId)TokenPermissions(address token,uint256 amount)";
    bytes32 public constant DEPOSIT_WITNESS_TYPEHASH = keccak256("DepositWitness(bytes32 channelId)");

    error OnlyBatchSettlement();

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData) external {
        if (msg.sender != BATCH_SETTLEMENT_ADDRESS) revert OnlyBatchSettlement();
        (uint256 nonce, uint256 deadline, bytes memory signature, bytes memory permitData) =
            abi.decode(collectorData, (uint256, uint256, bytes, bytes));
        if (permitData.length > 0) _tryPermit(payer, token, permitData);
        Permit2(PERMIT2_ADDRESS).permitWitnessTransferFrom(
            Permit2.PermitTransferFrom({permitted: Permit2.TokenPermissions({token: token, amount: amount}), nonce: nonce, deadline: deadline}),
            Permit2.SignatureTransferDetails({to: BATCH_SETTLEMENT_ADDRESS, requestedAmount: amount}),
            payer,
            keccak256(abi.encode(DEPOSIT_WITNESS_TYPEHASH, channelId)),
            WITNESS_TYPE_STRING,
            signature
        );
    }

    function _tryPermit(address payer, address token, bytes memory permitData) private {
        (uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) = abi.decode(permitData, (uint256, uint256, uint8, bytes32, bytes32));
        try IERC20Permit(token).permit(payer, PERMIT2_ADDRESS, value, deadline, v, r, s) {} catch {}
    }
}
