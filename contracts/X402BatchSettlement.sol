// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {SignatureCheck} from "./SignatureCheck.sol";

/// @dev What the batch-settlement contract asks a deposit collector: move `amount` of `token`
/// from `payer` to the batch-settlement contract, as `collectorData` authorizes for `channelId`.
interface IDepositCollector {
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData) external;
}

/// @title X402BatchSettlement — x402's `batch-settlement` contract, written to the ABI, EIP-712
/// domain and types the x402 EVM package (npm x402/evm) 2.27's batch-settlement client and facilitator call and sign
/// (the canonical contract's source is not published), for the devnet's canonical address
/// (decision 0073).
/// @notice A channel is fixed by its ChannelConfig (its id is the config's EIP-712 hash). The
/// payer deposits into it through a deposit collector; each request carries the payer's voucher
/// "up to maxClaimableAmount in all"; the receiver's authorizer claims vouchers in batches, each
/// claim raising the channel's cumulative `totalClaimed` (never above the voucher's maximum nor
/// the channel's balance), which credits the receiver; `settle` pays a receiver what was claimed
/// for it. What is not claimed goes back to the payer: by a cooperative refund (the receiver's
/// authorizer signs it, once per refund nonce) or by the payer's own withdrawal after the
/// channel's withdrawDelay, during which the receiver may still claim.
/// Money held = Σ channel balances − Σ settled; a claim never exceeds a balance, a refund or
/// withdrawal never takes claimed money, and each unit is settled once.
/// Nothing lives in immutables (anvil_setCode runs no constructor): the EIP-712 domain is derived
/// at call time from block.chainid and address(this).
contract X402BatchSettlement is ReentrancyGuard {
    using SafeERC20 for IERC20;

    struct ChannelConfig {
        address payer;
        address payerAuthorizer;
        address receiver;
        address receiverAuthorizer;
        address token;
        uint40 withdrawDelay;
        bytes32 salt;
    }

    struct Voucher {
        ChannelConfig channel;
        uint128 maxClaimableAmount;
    }

    struct VoucherClaim {
        Voucher voucher;
        bytes signature;
        uint128 totalClaimed;
    }

    struct ChannelState {
        uint128 balance;
        uint128 totalClaimed;
    }

    struct PendingWithdrawal {
        uint128 amount;
        uint40 initiatedAt;
    }

    struct ReceiverState {
        uint128 totalClaimed;
        uint128 totalSettled;
    }

    uint40 public constant MIN_WITHDRAW_DELAY = 900;
    uint40 public constant MAX_WITHDRAW_DELAY = 2_592_000;

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("x402 Batch Settlement");
    bytes32 private constant VERSION_HASH = keccak256("1");
    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 public constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 maxClaimableAmount)");
    bytes32 public constant REFUND_TYPEHASH = keccak256("Refund(bytes32 channelId,uint256 nonce,uint128 amount)");
    bytes32 public constant CLAIM_ENTRY_TYPEHASH =
        keccak256("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)");
    bytes32 public constant CLAIM_BATCH_TYPEHASH = keccak256(
        "ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
    );

    mapping(bytes32 channelId => ChannelState) public channels;
    mapping(bytes32 channelId => PendingWithdrawal) public pendingWithdrawals;
    mapping(bytes32 channelId => uint256) public refundNonce;
    mapping(address receiver => mapping(address token => ReceiverState)) public receivers;

    event Deposited(bytes32 indexed channelId, address indexed payer, address indexed collector, uint128 amount, uint128 balance);
    event Claimed(bytes32 indexed channelId, address indexed receiver, address indexed token, uint128 amount, uint128 totalClaimed);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, address indexed payer, uint128 amount, uint256 nonce);
    event WithdrawInitiated(bytes32 indexed channelId, address indexed payer, uint128 amount, uint40 initiatedAt);
    event WithdrawFinalized(bytes32 indexed channelId, address indexed payer, uint128 amount);

    error ZeroAmount();
    error InvalidChannelConfig();
    error WithdrawDelayOutOfRange(uint40 withdrawDelay);
    error DepositNotReceived(uint256 received, uint256 expected);
    error BalanceOverflow();
    error InvalidVoucherSignature(bytes32 channelId);
    error InvalidAuthorizerSignature();
    error UnauthorizedCaller();
    error ClaimExceedsVoucher(bytes32 channelId, uint128 totalClaimed, uint128 maxClaimableAmount);
    error ClaimExceedsBalance(bytes32 channelId, uint128 totalClaimed, uint128 balance);
    error ClaimBelowClaimed(bytes32 channelId, uint128 totalClaimed, uint128 alreadyClaimed);
    error EmptyClaims();
    error InvalidRefundNonce(uint256 expected, uint256 given);
    error NothingToRefund(bytes32 channelId);
    error NoPendingWithdrawal(bytes32 channelId);
    error WithdrawNotReady(bytes32 channelId, uint256 readyAt);
    error NothingToWithdraw(bytes32 channelId);

    // ---- views ----

    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice The channel's id: the EIP-712 hash of its config in this contract's domain.
    function getChannelId(ChannelConfig calldata config) public view returns (bytes32) {
        return _hashTyped(
            keccak256(
                abi.encode(
                    CHANNEL_CONFIG_TYPEHASH,
                    config.payer,
                    config.payerAuthorizer,
                    config.receiver,
                    config.receiverAuthorizer,
                    config.token,
                    config.withdrawDelay,
                    config.salt
                )
            )
        );
    }

    function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) public view returns (bytes32) {
        return _hashTyped(keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, maxClaimableAmount)));
    }

    function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) public view returns (bytes32) {
        return _hashTyped(keccak256(abi.encode(REFUND_TYPEHASH, channelId, nonce, amount)));
    }

    function getClaimBatchDigest(VoucherClaim[] calldata voucherClaims) public view returns (bytes32) {
        bytes32[] memory entries = new bytes32[](voucherClaims.length);
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            VoucherClaim calldata c = voucherClaims[i];
            entries[i] = keccak256(
                abi.encode(CLAIM_ENTRY_TYPEHASH, getChannelId(c.voucher.channel), c.voucher.maxClaimableAmount, c.totalClaimed)
            );
        }
        return _hashTyped(keccak256(abi.encode(CLAIM_BATCH_TYPEHASH, keccak256(abi.encodePacked(entries)))));
    }

    // ---- deposit ----

    /// @notice Adds `amount` to the channel of `config`, pulled from its payer by `collector` as
    /// `collectorData` authorizes. Only what reaches this contract is credited, whatever the
    /// collector: the balance is measured before and after.
    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData) external nonReentrant {
        if (amount == 0) revert ZeroAmount();
        _checkConfig(config);
        bytes32 channelId = getChannelId(config);
        IERC20 token = IERC20(config.token);
        uint256 before = token.balanceOf(address(this));
        IDepositCollector(collector).collect(config.payer, config.token, amount, channelId, collectorData);
        uint256 received = token.balanceOf(address(this)) - before;
        if (received != amount) revert DepositNotReceived(received, amount);
        ChannelState storage ch = channels[channelId];
        uint256 balance = uint256(ch.balance) + amount;
        if (balance > type(uint128).max) revert BalanceOverflow();
        ch.balance = uint128(balance);
        emit Deposited(channelId, config.payer, collector, amount, uint128(balance));
    }

    // ---- claims ----

    /// @notice Claims vouchers, called by each channel's receiver authorizer itself.
    function claim(VoucherClaim[] calldata voucherClaims) external nonReentrant {
        if (voucherClaims.length == 0) revert EmptyClaims();
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            if (voucherClaims[i].voucher.channel.receiverAuthorizer != msg.sender) revert UnauthorizedCaller();
            _claim(voucherClaims[i]);
        }
    }

    /// @notice Claims vouchers on the strength of their receiver authorizer's ClaimBatch
    /// signature (anyone may submit it; every claim must name the signing authorizer).
    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature) external nonReentrant {
        if (voucherClaims.length == 0) revert EmptyClaims();
        bytes32 digest = getClaimBatchDigest(voucherClaims);
        address authorizer = voucherClaims[0].voucher.channel.receiverAuthorizer;
        if (!SignatureCheck.isValid(authorizer, digest, authorizerSignature)) revert InvalidAuthorizerSignature();
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            if (voucherClaims[i].voucher.channel.receiverAuthorizer != authorizer) revert InvalidAuthorizerSignature();
            _claim(voucherClaims[i]);
        }
    }

    /// @dev Raises the channel's cumulative claim to `totalClaimed`, crediting the difference to
    /// its receiver. A claim at the channel's current total moves nothing (a retried batch);
    /// one below it reverts.
    function _claim(VoucherClaim calldata c) private {
        ChannelConfig calldata config = c.voucher.channel;
        bytes32 channelId = getChannelId(config);
        uint128 maxClaimable = c.voucher.maxClaimableAmount;
        address voucherSigner = config.payerAuthorizer != address(0) ? config.payerAuthorizer : config.payer;
        if (!SignatureCheck.isValid(voucherSigner, getVoucherDigest(channelId, maxClaimable), c.signature)) {
            revert InvalidVoucherSignature(channelId);
        }
        ChannelState storage ch = channels[channelId];
        uint128 total = c.totalClaimed;
        if (total > maxClaimable) revert ClaimExceedsVoucher(channelId, total, maxClaimable);
        if (total > ch.balance) revert ClaimExceedsBalance(channelId, total, ch.balance);
        if (total < ch.totalClaimed) revert ClaimBelowClaimed(channelId, total, ch.totalClaimed);
        uint128 delta = total - ch.totalClaimed;
        if (delta == 0) return;
        ch.totalClaimed = total;
        receivers[config.receiver][config.token].totalClaimed += delta;
        emit Claimed(channelId, config.receiver, config.token, delta, total);
    }

    // ---- settle ----

    /// @notice Pays `receiver` what was claimed for it in `token` and not yet paid (anyone may call).
    function settle(address receiver, address token) external nonReentrant {
        ReceiverState storage r = receivers[receiver][token];
        uint128 amount = r.totalClaimed - r.totalSettled;
        if (amount == 0) return;
        r.totalSettled = r.totalClaimed;
        IERC20(token).safeTransfer(receiver, amount);
        emit Settled(receiver, token, msg.sender, amount);
    }

    // ---- refunds ----

    /// @notice Gives the payer back up to `amount` of what is unclaimed, called by the channel's
    /// receiver or receiver authorizer.
    function refund(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.receiver && msg.sender != config.receiverAuthorizer) revert UnauthorizedCaller();
        bytes32 channelId = getChannelId(config);
        _refund(config, channelId, amount, refundNonce[channelId]++);
    }

    /// @notice The same on the strength of the receiver authorizer's Refund signature for the
    /// channel's current refund nonce (anyone may submit it; each nonce serves once).
    function refundWithSignature(ChannelConfig calldata config, uint128 amount, uint256 nonce, bytes calldata receiverAuthorizerSignature)
        external
        nonReentrant
    {
        bytes32 channelId = getChannelId(config);
        uint256 expected = refundNonce[channelId];
        if (nonce != expected) revert InvalidRefundNonce(expected, nonce);
        if (!SignatureCheck.isValid(config.receiverAuthorizer, getRefundDigest(channelId, nonce, amount), receiverAuthorizerSignature)) {
            revert InvalidAuthorizerSignature();
        }
        refundNonce[channelId] = expected + 1;
        _refund(config, channelId, amount, nonce);
    }

    /// @dev Pays the payer min(amount, unclaimed); the unclaimed part alone can leave.
    function _refund(ChannelConfig calldata config, bytes32 channelId, uint128 amount, uint256 nonce) private {
        if (amount == 0) revert ZeroAmount();
        ChannelState storage ch = channels[channelId];
        uint128 available = ch.balance - ch.totalClaimed;
        uint128 paid = amount < available ? amount : available;
        if (paid == 0) revert NothingToRefund(channelId);
        ch.balance -= paid;
        if (ch.balance == ch.totalClaimed) delete pendingWithdrawals[channelId];
        IERC20(config.token).safeTransfer(config.payer, paid);
        emit Refunded(channelId, config.payer, paid, nonce);
    }

    // ---- the payer's own withdrawal ----

    /// @notice The payer (or its authorizer) announces a withdrawal of up to `amount`; it can be
    /// finalized after the channel's withdrawDelay, the receiver claiming meanwhile what it holds.
    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external nonReentrant {
        if (msg.sender != config.payer && (config.payerAuthorizer == address(0) || msg.sender != config.payerAuthorizer)) {
            revert UnauthorizedCaller();
        }
        if (amount == 0) revert ZeroAmount();
        bytes32 channelId = getChannelId(config);
        if (channels[channelId].balance == 0) revert NothingToWithdraw(channelId);
        pendingWithdrawals[channelId] = PendingWithdrawal({amount: amount, initiatedAt: uint40(block.timestamp)});
        emit WithdrawInitiated(channelId, config.payer, amount, uint40(block.timestamp));
    }

    /// @notice Pays the payer min(announced, unclaimed) once the delay has passed (anyone may call).
    function finalizeWithdraw(ChannelConfig calldata config) external nonReentrant {
        bytes32 channelId = getChannelId(config);
        PendingWithdrawal memory pending = pendingWithdrawals[channelId];
        if (pending.initiatedAt == 0) revert NoPendingWithdrawal(channelId);
        uint256 readyAt = uint256(pending.initiatedAt) + config.withdrawDelay;
        if (block.timestamp < readyAt) revert WithdrawNotReady(channelId, readyAt);
        delete pendingWithdrawals[channelId];
        ChannelState storage ch = channels[channelId];
        uint128 available = ch.balance - ch.totalClaimed;
        uint128 paid = pending.amount < available ? pending.amount : available;
        if (paid == 0) revert NothingToWithdraw(channelId);
        ch.balance -= paid;
        IERC20(config.token).safeTransfer(config.payer, paid);
        emit WithdrawFinalized(channelId, config.payer, paid);
    }

    // ---- multicall ----

    /// @notice Runs calls to this contract in one transaction (the facilitator claims and
    /// refunds at once); any failure reverts them all.
    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i = 0; i < data.length; i++) {
            (bool ok, bytes memory result) = address(this).delegatecall(data[i]);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(result, 0x20), mload(result))
                }
            }
            results[i] = result;
        }
    }

    function _checkConfig(ChannelConfig calldata config) private pure {
        if (config.payer == address(0) || config.receiver == address(0) || config.receiverAuthorizer == address(0) || config.token == address(0)) {
            revert InvalidChannelConfig();
        }
        if (config.withdrawDelay < MIN_WITHDRAW_DELAY || config.withdrawDelay > MAX_WITHDRAW_DELAY) {
            revert WithdrawDelayOutOfRange(config.withdrawDelay);
        }
    }

    function _hashTyped(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }
}
