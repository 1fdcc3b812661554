// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title MockAggregator — a Chainlink AggregatorV3Interface feed for local devnets.
/// @notice Placed at a fixed address with anvil_setCode, so no constructor runs; anvil's account
/// #0 sets the rounds. `setAnswer` makes the feed live (its updatedAt follows the block time, so a
/// devnet resumed days later is not stale); `setRound` pins updatedAt, so tests can make it stale.
contract MockAggregator {
    address public constant OWNER = 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266;
    uint8 public constant decimals = 8;

    uint80 private _roundId;
    int256 private _answer;
    uint256 private _updatedAt;
    bool private _pinned;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    modifier onlyOwner() {
        require(msg.sender == OWNER, "MockAggregator: only account #0");
        _;
    }

    /// A new live round: updatedAt is always the current block time.
    function setAnswer(int256 answer) external onlyOwner {
        _set(answer, 0, false);
    }

    /// A new round with a pinned updatedAt (0 = a round that never completed).
    function setRound(int256 answer, uint256 updatedAt) external onlyOwner {
        _set(answer, updatedAt, true);
    }

    function _set(int256 answer, uint256 updatedAt, bool pinned) private {
        _roundId += 1;
        _answer = answer;
        _updatedAt = updatedAt;
        _pinned = pinned;
        emit AnswerUpdated(answer, _roundId, pinned ? updatedAt : block.timestamp);
    }

    function description() external pure returns (string memory) {
        return "devnet mock";
    }

    function version() external pure returns (uint256) {
        return 4;
    }

    function latestAnswer() external view returns (int256) {
        return _answer;
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        uint256 at = _pinned ? _updatedAt : block.timestamp;
        return (_roundId, _answer, at, at, _roundId);
    }
}
