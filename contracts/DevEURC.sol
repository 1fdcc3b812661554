// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {DevStablecoin} from "./DevStablecoin.sol";

/// @title DevEURC — an EIP-3009 EURC for local devnets, at the canonical EURC address of each
/// network, with the name and version Circle's EURC has on Base and Base Sepolia ("EURC", "2").
contract DevEURC is DevStablecoin {
    function name() public pure override returns (string memory) {
        return "EURC";
    }

    function symbol() public pure override returns (string memory) {
        return "EURC";
    }
}
