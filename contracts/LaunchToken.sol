// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {IERC5267} from "@openzeppelin/contracts/interfaces/IERC5267.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP3009} from "./EIP3009.sol";

/// @title LaunchToken — a token launched by the service (SPEC §14).
/// @notice ERC-20 with 18 decimals, EIP-2612 permit and EIP-3009, one EIP-712 domain for both:
/// name = the token's name, version "1", the chain id, this contract. The whole supply is minted
/// once, at deployment, to `custody`; nobody can mint afterwards.
/// @dev Permit is OpenZeppelin ERC20Permit's logic over OpenZeppelin's Nonces and ECDSA, but not
/// ERC20Permit itself: OpenZeppelin 5.7's EIP712 keeps the domain name in a 31-byte ShortString
/// and reverts on longer names, while token names run to 32 characters (up to 128 UTF-8 bytes);
/// it also reaches utils/Bytes.sol, which needs Cancun (we compile for paris). So the domain is
/// built here from the hash of the full name, and EIP3009 hashes typed data for both.
contract LaunchToken is ERC20, IERC20Permit, IERC5267, Nonces, EIP3009 {
    bytes32 private constant TYPE_HASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    bytes32 private constant HASHED_VERSION = keccak256("1");

    bytes32 private immutable _hashedName;

    error ERC2612ExpiredSignature(uint256 deadline);
    error ERC2612InvalidSigner(address signer, address owner);

    constructor(string memory name_, string memory symbol_, uint256 totalSupply_, address custody) ERC20(name_, symbol_) {
        _hashedName = keccak256(bytes(name_));
        _mint(custody, totalSupply_);
    }

    function version() external pure returns (string memory) {
        return "1";
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() public view override(IERC20Permit, EIP3009) returns (bytes32) {
        return keccak256(abi.encode(TYPE_HASH, _hashedName, HASHED_VERSION, block.chainid, address(this)));
    }

    /// @inheritdoc IERC5267
    function eip712Domain()
        external
        view
        returns (bytes1 fields, string memory name_, string memory version_, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] memory extensions)
    {
        return (hex"0f", name(), "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    /// @inheritdoc IERC20Permit
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external {
        if (block.timestamp > deadline) revert ERC2612ExpiredSignature(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        address signer = ECDSA.recover(_hashTypedData(structHash), v, r, s);
        if (signer != owner) revert ERC2612InvalidSigner(signer, owner);
        _approve(owner, spender, value);
    }

    /// @inheritdoc IERC20Permit
    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    function _eip3009Transfer(address from, address to, uint256 value) internal override {
        _transfer(from, to, value);
    }
}
