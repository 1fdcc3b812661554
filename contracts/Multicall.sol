// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Multicall — the tryAggregate subset of Multicall3, placed at Multicall3's canonical
/// address on the devnets so clients that batch reads (the x402 facilitator's diagnostics) work.
contract Multicall {
    struct Call {
        address target;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls) external returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (requireSuccess) require(success, "Multicall: call failed");
            returnData[i] = Result(success, ret);
        }
    }
}
