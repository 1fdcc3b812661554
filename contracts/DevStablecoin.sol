// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {EIP3009} from "./EIP3009.sol";

/// @title DevStablecoin — what the devnet's EIP-3009 stablecoins (DevUSDC, DevEURC) share.
/// @notice Placed at a canonical token address with anvil_setCode, so no constructor runs:
/// nothing may live in constructor-set storage or immutables. The EIP-712 domain is derived from
/// block.chainid and address(this) with the subclass's name and version "2", as Circle's
/// tokens have on Base. 6 decimals. Minting is reserved to anvil's account #0, the devnet service.
abstract contract DevStablecoin is ERC20, EIP3009 {
    address public constant MINTER = 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266;

    bytes32 public constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    // Never runs (see above); ERC20's stored name and symbol stay empty and are overridden.
    constructor() ERC20("", "") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function version() public pure returns (string memory) {
        return "2";
    }

    function DOMAIN_SEPARATOR() public view override returns (bytes32) {
        return keccak256(
            abi.encode(EIP712_DOMAIN_TYPEHASH, keccak256(bytes(name())), keccak256(bytes(version())), block.chainid, address(this))
        );
    }

    function mint(address to, uint256 value) external {
        require(msg.sender == MINTER, "DevStablecoin: only the devnet minter");
        _mint(to, value);
    }

    function _eip3009Transfer(address from, address to, uint256 value) internal override {
        _transfer(from, to, value);
    }
}
