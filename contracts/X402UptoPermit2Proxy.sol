// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Permit2} from "./Permit2.sol";
import {PERMIT2_ADDRESS} from "./X402Addresses.sol";

/// @title X402UptoPermit2Proxy — x402's `upto` proxy (x402UptoPermit2Proxy in coinbase/x402,
/// contracts/evm), written to the ABI, witness type and errors the x402 EVM package's upto facilitator and
/// client use, for the devnet's canonical proxy address (decision 0073).
/// @notice The payer signs a Permit2 witness transfer of at most `permitted.amount` to this proxy
/// as spender, the witness naming the payee (`to`), the one facilitator allowed to settle it and
/// the earliest settlement time; that facilitator settles any amount up to the maximum, once
/// (Permit2's nonce). Permit2's address is a constant, not the canonical contract's immutable:
/// anvil_setCode runs no constructor. OpenZeppelin's guard reads its unset slot as "not entered".
contract X402UptoPermit2Proxy is ReentrancyGuard {
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");
    // solhint-disable-next-line var-name-mixedcase
    Permit2 public constant PERMIT2 = Permit2(PERMIT2_ADDRESS);

    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    event Settled();
    event SettledWithPermit();
    event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason);
    event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode);
    event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data);

    error InvalidPermit2Address();
    error InvalidDestination();
    error PaymentTooEarly();
    error InvalidOwner();
    error InvalidAmount();
    error Permit2612AmountMismatch();
    error UnauthorizedFacilitator();
    error AmountExceedsPermitted();

    /// @notice Moves `amount` (at most the permitted maximum) from `owner` to `witness.to`.
    function settle(
        Permit2.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _settle(permit, amount, owner, witness, signature);
        emit Settled();
    }

    /// @notice The same, after the owner's EIP-2612 permit lets Permit2 spend the token (gas
    /// sponsoring: the payer needs no approval transaction). A failing permit is reported in an
    /// event and the settlement still runs, as an earlier approval may stand.
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        Permit2.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (permit2612.value != permit.permitted.amount) revert Permit2612AmountMismatch();
        address token = permit.permitted.token;
        try IERC20Permit(token).permit(owner, PERMIT2_ADDRESS, permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s) {
            // approved
        } catch Error(string memory reason) {
            emit EIP2612PermitFailedWithReason(token, owner, reason);
        } catch Panic(uint256 errorCode) {
            emit EIP2612PermitFailedWithPanic(token, owner, errorCode);
        } catch (bytes memory data) {
            emit EIP2612PermitFailedWithData(token, owner, data);
        }
        _settle(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(
        Permit2.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        if (amount == 0) revert InvalidAmount();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
        PERMIT2.permitWitnessTransferFrom(
            permit, Permit2.SignatureTransferDetails({to: witness.to, requestedAmount: amount}), owner, witnessHash, WITNESS_TYPE_STRING, signature
        );
    }
}
