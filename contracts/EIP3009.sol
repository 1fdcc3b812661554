// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title EIP3009 — transfers authorised by the holder's EIP-712 signature (EIP-3009), written
/// once for every token of this repository (DevUSDC, LaunchToken).
/// @notice The token supplies the two things that differ between them: its EIP-712 domain
/// (DevUSDC derives it at run time because anvil_setCode runs no constructor; LaunchToken's
/// comes from its name fixed at deployment) and how balances move (ERC20._transfer).
/// Revert reasons keep the words USDC's FiatTokenV2 uses, which x402 facilitators match on.
abstract contract EIP3009 {
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH = keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    mapping(address authorizer => mapping(bytes32 nonce => bool)) private _authorizationStates;

    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    /// @notice The token's EIP-712 domain separator.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() public view virtual returns (bytes32);

    /// @dev Moves `value` from `from` to `to` (reverting as the token's own transfer would).
    function _eip3009Transfer(address from, address to, uint256 value) internal virtual;

    /// @notice Whether `nonce` of `authorizer` is used or cancelled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    function transferWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce,
        uint8 v, bytes32 r, bytes32 s
    ) external {
        _useAuthorization(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
    }

    function transferWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes memory signature
    ) external {
        (uint8 v, bytes32 r, bytes32 s) = ECDSA.parse(signature);
        _useAuthorization(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
    }

    /// @notice Like transferWithAuthorization, but only the payee may submit it, so nobody can
    /// front-run the payee's call (with its side effects) by submitting the bare transfer.
    function receiveWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce,
        uint8 v, bytes32 r, bytes32 s
    ) external {
        require(to == msg.sender, "EIP3009: caller must be the payee");
        _useAuthorization(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
    }

    function receiveWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes memory signature
    ) external {
        require(to == msg.sender, "EIP3009: caller must be the payee");
        (uint8 v, bytes32 r, bytes32 s) = ECDSA.parse(signature);
        _useAuthorization(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        _cancelAuthorization(authorizer, nonce, v, r, s);
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) external {
        (uint8 v, bytes32 r, bytes32 s) = ECDSA.parse(signature);
        _cancelAuthorization(authorizer, nonce, v, r, s);
    }

    function _useAuthorization(
        bytes32 typeHash, address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce,
        uint8 v, bytes32 r, bytes32 s
    ) private {
        require(block.timestamp > validAfter, "EIP3009: authorization is not yet valid");
        require(block.timestamp < validBefore, "EIP3009: authorization is expired");
        _requireUnused(from, nonce);
        _requireSigner(from, keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce)), v, r, s);
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _eip3009Transfer(from, to, value);
    }

    function _cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) private {
        _requireUnused(authorizer, nonce);
        _requireSigner(authorizer, keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce)), v, r, s);
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    /// @dev The EIP-712 digest of `structHash` in the token's domain.
    function _hashTypedData(bytes32 structHash) internal view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
    }

    function _requireUnused(address authorizer, bytes32 nonce) private view {
        require(!_authorizationStates[authorizer][nonce], "EIP3009: authorization is used or canceled");
    }

    /// @dev OpenZeppelin's ECDSA refuses malleable (high-s) signatures and the zero signer.
    function _requireSigner(address expected, bytes32 structHash, uint8 v, bytes32 r, bytes32 s) private view {
        // Some signers produce v as the recovery id (0/1) rather than 27/28.
        if (v < 27) v += 27;
        require(ECDSA.recover(_hashTypedData(structHash), v, r, s) == expected, "EIP3009: invalid signature");
    }
}
