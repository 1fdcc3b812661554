// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @dev The ERC-1271 check for a contract signer.
interface IERC1271Signer {
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4);
}

/// @title SignatureCheck — whether `signature` over `digest` is `signer`'s, as Permit2 and the
/// x402 contracts accept it: a 65-byte or 64-byte (EIP-2098) ECDSA signature of an account
/// without code, or ERC-1271 `isValidSignature` of one with code.
/// @notice OpenZeppelin's SignatureChecker would do, but reaches utils/Bytes.sol (Cancun's MCOPY),
/// which our paris build cannot compile (scripts/compile-contracts.ts).
library SignatureCheck {
    function isValid(address signer, bytes32 digest, bytes memory signature) internal view returns (bool) {
        if (signer == address(0)) return false;
        if (signer.code.length > 0) {
            (bool ok, bytes memory result) = signer.staticcall(abi.encodeCall(IERC1271Signer.isValidSignature, (digest, signature)));
            return ok && result.length >= 32 && abi.decode(result, (bytes32)) == bytes32(IERC1271Signer.isValidSignature.selector);
        }
        address recovered;
        ECDSA.RecoverError err;
        if (signature.length == 65) {
            (recovered, err, ) = ECDSA.tryRecover(digest, signature);
        } else if (signature.length == 64) {
            bytes32 r;
            bytes32 vs;
            assembly ("memory-safe") {
                r := mload(add(signature, 0x20))
                vs := mload(add(signature, 0x40))
            }
            (recovered, err, ) = ECDSA.tryRecover(digest, r, vs);
        } else {
            return false;
        }
        return err == ECDSA.RecoverError.NoError && recovered == signer;
    }
}
