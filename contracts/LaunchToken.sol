// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {EIP3009} from "./EIP3009.sol";

/// @title LaunchToken — a token launched by the service (SPEC §14).
/// @notice ERC-20 with 18 decimals, EIP-2612 permit and EIP-3009, one EIP-712 domain for both
/// (name = the token's name, version "1"). The whole supply is minted once, at deployment, to
/// `custody`; nobody can mint afterwards.
contract LaunchToken is ERC20, ERC20Permit, EIP3009 {
    constructor(string memory name_, string memory symbol_, uint256 totalSupply_, address custody)
        ERC20(name_, symbol_)
        ERC20Permit(name_)
    {
        _mint(custody, totalSupply_);
    }

    function _eip3009Digest(bytes32 structHash) internal view override returns (bytes32) {
        return _hashTypedDataV4(structHash);
    }

    function _eip3009Transfer(address from, address to, uint256 value) internal override {
        _transfer(from, to, value);
    }
}
