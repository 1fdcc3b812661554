/**
 * Checks a token's EIP-3009 ReceiveWithAuthorization off chain exactly as EIP3009.sol does on
 * chain: 65-byte signature, v in {0, 1, 27, 28}, low s (OpenZeppelin ECDSA), EIP-712 recovery in
 * the token's domain. Shared by the viem and fake token issuers.
 */
import { getAddress, isAddress, recoverTypedDataAddress, type Hex } from 'viem';
import { receiveAuthorizationTypedData, type Eip3009Token, type TokenAuthorization } from '../../../domain/token-authorization.js';

const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e73_57a4501ddfe92f46681b20a0n;
const UINT256_MAX = 2n ** 256n - 1n;

/** Whether every field has the shape the contract call needs (addresses, uint256s, bytes32, 65-byte signature). */
export function isWellFormedAuthorization(a: TokenAuthorization): boolean {
  const uint = (v: bigint) => typeof v === 'bigint' && v >= 0n && v <= UINT256_MAX;
  return (
    isAddress(a.from, { strict: false }) &&
    isAddress(a.to, { strict: false }) &&
    uint(a.value) &&
    uint(a.validAfter) &&
    uint(a.validBefore) &&
    /^0x[0-9a-fA-F]{64}$/.test(a.nonce) &&
    /^0x[0-9a-fA-F]{130}$/.test(a.signature)
  );
}

/** The checksummed signer, or null when the authorization or its signature is malformed. */
export async function recoverReceiveAuthorizer(
  chainId: number,
  token: Eip3009Token,
  a: TokenAuthorization,
): Promise<Hex | null> {
  if (!isWellFormedAuthorization(a) || !isAddress(token.address, { strict: false })) return null;
  const r = BigInt(`0x${a.signature.slice(2, 66)}`);
  const s = BigInt(`0x${a.signature.slice(66, 130)}`);
  const v = Number.parseInt(a.signature.slice(130, 132), 16);
  if (r === 0n || s === 0n || s > HALF_N || ![0, 1, 27, 28].includes(v)) return null;
  const typed = receiveAuthorizationTypedData({
    chainId,
    token,
    message: { ...a, from: getAddress(a.from), to: getAddress(a.to) },
  });
  try {
    const signer = await recoverTypedDataAddress({
      domain: { ...typed.domain, verifyingContract: getAddress(token.address) },
      types: typed.types,
      primaryType: typed.primaryType,
      message: { ...typed.message, from: getAddress(a.from), to: getAddress(a.to), nonce: a.nonce as Hex },
      signature: a.signature as Hex,
    });
    return getAddress(signer);
  } catch {
    return null;
  }
}
