// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {LaunchToken} from "./LaunchToken.sol";

interface IUniswapV2FactoryLike {
    function getPair(address tokenA, address tokenB) external view returns (address);
    function createPair(address tokenA, address tokenB) external returns (address);
}

interface IUniswapV2PairLike {
    function token0() external view returns (address);
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
    function sync() external;
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
    function mint(address to) external returns (uint256 liquidity);
}

/// @title LaunchFactory — deploys each LaunchToken with CREATE2 at an address known in advance.
/// @notice salt = keccak256(bytes(tokenId)), and the supply goes to the caller, who is part of
/// the init code: the address announced for (tokenId, name, symbol, supply, custody) can only
/// be produced by `custody` calling deploy with exactly those values. So anyone may call deploy,
/// and nobody but custody can occupy custody's addresses.
/// It also seeds a graduating token's Uniswap v2 pool (`seedPool`), whatever an outsider put in
/// the pair before, and sends the caller's token deliveries in one transaction (`deliver`).
/// Every token it moves comes from `msg.sender` (who approved this contract): nobody can move
/// another's tokens through it, whatever allowance they gave it.
/// Keeps no state and has no constructor, so a devnet can place it with anvil_setCode.
contract LaunchFactory {
    using SafeERC20 for IERC20;

    event PoolSeeded(
        address indexed token,
        address indexed pair,
        uint256 tokenReserve,
        uint256 usdReserve,
        uint256 liquidity,
        uint256 tokensLocked,
        uint256 usdReturned
    );

    event TokenDeployed(
        address indexed token, address indexed custody, bytes32 indexed salt, string tokenId, string name, string symbol, uint256 totalSupply
    );

    /// @notice Deploys the token and mints `totalSupply` to the caller.
    function deploy(string calldata tokenId, string calldata name, string calldata symbol, uint256 totalSupply)
        external
        returns (address token)
    {
        bytes32 salt = keccak256(bytes(tokenId));
        require(_predict(salt, name, symbol, totalSupply, msg.sender).code.length == 0, "LaunchFactory: already deployed");
        token = address(new LaunchToken{salt: salt}(name, symbol, totalSupply, msg.sender));
        emit TokenDeployed(token, msg.sender, salt, tokenId, name, symbol, totalSupply);
    }

    /// @notice One of the caller's deliveries: `amount` of `token` from the caller to `to`.
    struct Delivery {
        address token;
        address to;
        uint256 amount;
    }

    /// @notice The caller's EIP-2612 permit giving this contract an unlimited allowance on `token`,
    /// valid for ever (value and deadline type(uint256).max), at the caller's current permit nonce.
    struct Approval {
        address token;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// @notice Sends every delivery from the caller, all or none: one failing (balance, allowance)
    /// reverts them all. `approvals` come first, for tokens this contract has no allowance on yet;
    /// one that fails (its nonce already used: an earlier batch, or anyone who submitted it first)
    /// is skipped, and the allowance it gave stays.
    function deliver(Approval[] calldata approvals, Delivery[] calldata deliveries) external {
        for (uint256 i = 0; i < approvals.length; i++) {
            Approval calldata a = approvals[i];
            try IERC20Permit(a.token).permit(msg.sender, address(this), type(uint256).max, type(uint256).max, a.v, a.r, a.s) {} catch {}
        }
        for (uint256 i = 0; i < deliveries.length; i++) {
            Delivery calldata d = deliveries[i];
            IERC20(d.token).safeTransferFrom(msg.sender, d.to, d.amount);
        }
    }

    /// @notice Where `custody`'s deploy with these values puts (or has put) the token.
    function predictAddress(string calldata tokenId, string calldata name, string calldata symbol, uint256 totalSupply, address custody)
        external
        view
        returns (address)
    {
        return _predict(keccak256(bytes(tokenId)), name, symbol, totalSupply, custody);
    }

    function _predict(bytes32 salt, string calldata name, string calldata symbol, uint256 totalSupply, address custody)
        private
        view
        returns (address)
    {
        bytes32 initCodeHash =
            keccak256(abi.encodePacked(type(LaunchToken).creationCode, abi.encode(name, symbol, totalSupply, custody)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash)))));
    }

    /// @notice Seeds the `token`/`usd` pair of `uniswapFactory` at the price usdAmount/tokenAmount,
    /// taking at most those amounts from the caller (who approved this contract), in one
    /// transaction. A pair someone created and filled first — dust made reserves with `sync`, or
    /// liquidity at another price — does not stop it: whatever sits in the pair becomes reserves,
    /// a swap moves the pair to the target price (Uniswap's own profit-maximizing trade, so an
    /// outsider's liquidity is arbitraged, never paid), then the caller's assets are added at
    /// that price. The LP tokens and any launched tokens the pool did not need go to `lockTo`
    /// (the burn address); USD the pool did not need goes back to the caller.
    function seedPool(address uniswapFactory, address token, address usd, uint256 tokenAmount, uint256 usdAmount, address lockTo)
        external
        returns (address pair, uint256 liquidity)
    {
        require(tokenAmount > 0 && usdAmount > 0, "LaunchFactory: empty seed");
        pair = IUniswapV2FactoryLike(uniswapFactory).getPair(token, usd);
        if (pair == address(0)) pair = IUniswapV2FactoryLike(uniswapFactory).createPair(token, usd);
        IERC20(token).safeTransferFrom(msg.sender, address(this), tokenAmount);
        IERC20(usd).safeTransferFrom(msg.sender, address(this), usdAmount);
        IUniswapV2PairLike(pair).sync();
        bool tokenFirst = IUniswapV2PairLike(pair).token0() == token;

        Seed memory s = Seed(tokenAmount, usdAmount, tokenAmount, usdAmount);
        (uint256 rt, uint256 ru) = _reserves(pair, tokenFirst);
        if (rt > 0 && ru > 0) _moveToPrice(pair, token, usd, tokenFirst, rt, ru, s);

        (rt, ru) = _reserves(pair, tokenFirst);
        (uint256 x, uint256 y) = _deposit(rt, ru, s);
        if (x > 0) IERC20(token).safeTransfer(pair, x);
        if (y > 0) IERC20(usd).safeTransfer(pair, y);
        liquidity = IUniswapV2PairLike(pair).mint(lockTo);
        if (s.tokens > x) IERC20(token).safeTransfer(lockTo, s.tokens - x);
        if (s.usd > y) IERC20(usd).safeTransfer(msg.sender, s.usd - y);
        (rt, ru) = _reserves(pair, tokenFirst);
        emit PoolSeeded(token, pair, rt, ru, liquidity, s.tokens - x, s.usd - y);
    }

    /// @dev The target price (targetTokens : targetUsd) and what this call holds now.
    struct Seed {
        uint256 targetTokens;
        uint256 targetUsd;
        uint256 tokens;
        uint256 usd;
    }

    function _reserves(address pair, bool tokenFirst) private view returns (uint256 rt, uint256 ru) {
        (uint112 r0, uint112 r1,) = IUniswapV2PairLike(pair).getReserves();
        (rt, ru) = tokenFirst ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
    }

    /// @dev UniswapV2LiquidityMathLibrary.computeProfitMaximizingTrade with the true reserve ratio
    /// targetTokens : targetUsd, the input capped at what this call holds; a swap that would give
    /// nothing (a pair of dust) is skipped, and the deposit absorbs the dust instead.
    function _moveToPrice(address pair, address token, address usd, bool tokenFirst, uint256 rt, uint256 ru, Seed memory s) private {
        bool sellTokens = Math.mulDiv(rt, s.targetUsd, ru) < s.targetTokens;
        uint256 left = Math.sqrt(
            Math.mulDiv(rt * ru * 1000, sellTokens ? s.targetTokens : s.targetUsd, (sellTokens ? s.targetUsd : s.targetTokens) * 997)
        );
        uint256 right = ((sellTokens ? rt : ru) * 1000) / 997;
        if (left <= right) return;
        uint256 amountIn = Math.min(left - right, sellTokens ? s.tokens : s.usd);
        (uint256 rIn, uint256 rOut) = sellTokens ? (rt, ru) : (ru, rt);
        uint256 amountOut = (amountIn * 997 * rOut) / (rIn * 1000 + amountIn * 997);
        if (amountOut == 0) return;
        IERC20(sellTokens ? token : usd).safeTransfer(pair, amountIn);
        bool outIs0 = sellTokens != tokenFirst; // token0 comes out when we sell the token1 side
        IUniswapV2PairLike(pair).swap(outIs0 ? amountOut : 0, outIs0 ? 0 : amountOut, address(this), "");
        if (sellTokens) (s.tokens, s.usd) = (s.tokens - amountIn, s.usd + amountOut);
        else (s.tokens, s.usd) = (s.tokens + amountOut, s.usd - amountIn);
    }

    /// @dev What to add so the pair ends at targetUsd/targetTokens: all the tokens this call holds
    /// and the USD their price needs beside the reserves already there — or, when that is more
    /// USD than it holds, all its USD and the tokens that price needs (rounded down).
    function _deposit(uint256 rt, uint256 ru, Seed memory s) private pure returns (uint256 x, uint256 y) {
        uint256 wantUsd = Math.mulDiv(s.targetUsd, rt + s.tokens, s.targetTokens);
        if (wantUsd <= ru + s.usd) {
            x = s.tokens;
            y = wantUsd > ru ? wantUsd - ru : 0;
        } else {
            y = s.usd;
            uint256 wantTokens = Math.mulDiv(s.targetTokens, ru + y, s.targetUsd);
            x = wantTokens > rt ? Math.min(wantTokens - rt, s.tokens) : 0;
        }
    }
}
