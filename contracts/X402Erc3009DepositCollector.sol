// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {BATCH_SETTLEMENT_ADDRESS} from "./X402Addresses.sol";
import {IDepositCollector} from "./X402BatchSettlement.sol";

/// @dev EIP-3009's receiveWithAuthorization, with the signature as bytes (USDC v2.2, our tokens).
interface IReceiveWithAuthorization {
    function receiveWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes memory signature
    ) external;
}

/// @title X402Erc3009DepositCollector — pulls a batch-settlement deposit by the payer's EIP-3009
/// ReceiveWithAuthorization to this collector, then hands it to the batch-settlement contract
/// (decision 0073), as the x402 EVM package's batch-settlement client signs it and facilitator encodes it:
/// collectorData = abi.encode(validAfter, validBefore, salt, signature), and the authorization's
/// nonce is keccak256(abi.encode(channelId, salt)), which binds it to the one channel.
/// @notice Only the batch-settlement contract may call it: someone else replaying a seen
/// authorization here would move the payer's money without crediting the channel.
contract X402Erc3009DepositCollector is IDepositCollector {
    using SafeERC20 for IERC20;

    error OnlyBatchSettlement();

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData) external {
        if (msg.sender != BATCH_SETTLEMENT_ADDRESS) revert OnlyBatchSettlement();
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) =
            abi.decode(collectorData, (uint256, uint256, uint256, bytes));
        bytes32 nonce = keccak256(abi.encode(channelId, salt));
        IReceiveWithAuthorization(token).receiveWithAuthorization(payer, address(this), amount, validAfter, validBefore, nonce, signature);
        IERC20(token).safeTransfer(BATCH_SETTLEMENT_ADDRESS, amount);
    }
}
