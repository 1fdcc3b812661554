// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP3009} from "./EIP3009.sol";

/// @title DevStablecoin — what the devnet's EIP-3009 stablecoins (DevUSDC, DevEURC) share.
/// @notice Placed at a canonical token address with anvil_setCode, so no constructor runs:
/// nothing may live in constructor-set storage or immutables. The EIP-712 domain is derived from
/// block.chainid and address(this) with the subclass's name and version "2", as Circle's
/// tokens have on Base. 6 decimals. Minting is reserved to anvil's account #0, the devnet service.
/// EIP-2612 `permit` in the same domain, as USDC and EURC have it (the x402 EIP-2612 gas-sponsoring
/// extension lets Permit2 spend a payer's token by it); its nonces sit after every other slot, so a
/// devnet state saved before it keeps its balances when the code is replaced.
abstract contract DevStablecoin is ERC20, EIP3009 {
    address public constant MINTER = 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266;

    bytes32 public constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    /// @notice The owner's next EIP-2612 permit nonce.
    mapping(address owner => uint256) public nonces;

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

    /// @notice EIP-2612: lets `spender` spend `value` of `owner`'s tokens on `owner`'s signature.
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external {
        require(deadline >= block.timestamp, "EIP2612: permit is expired");
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, nonces[owner]++, deadline));
        if (v < 27) v += 27;
        require(ECDSA.recover(_hashTypedData(structHash), v, r, s) == owner, "EIP2612: invalid signature");
        _approve(owner, spender, value);
    }

    function _eip3009Transfer(address from, address to, uint256 value) internal override {
        _transfer(from, to, value);
    }
}
