// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {LaunchToken} from "./LaunchToken.sol";

/// @title LaunchFactory — deploys each LaunchToken with CREATE2 at an address known in advance.
/// @notice salt = keccak256(bytes(tokenId)), and the supply goes to the caller, who is part of
/// the init code: the address announced for (tokenId, name, symbol, supply, custody) can only
/// be produced by `custody` calling deploy with exactly those values. So anyone may call deploy,
/// and nobody but custody can occupy custody's addresses.
/// Keeps no state and has no constructor, so a devnet can place it with anvil_setCode.
contract LaunchFactory {
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
}
