"""Pay the launchpad with the official x402 Python SDK over requests (sync).

    pip install "x402[evm,requests]"
    python examples/python/pay_with_requests.py     # PORT (or BASE_URL) and WALLET_KEY override the defaults
"""

import os

import requests
from eth_account import Account
from x402 import prefer_network, x402ClientSync
from x402.http import decode_payment_response_header
from x402.http.clients import x402_requests
from x402.mechanisms.evm import EthAccountSigner
from x402.mechanisms.evm.exact import ExactEvmScheme

# The service's own setting: `PORT=4000 npm start` pairs with `PORT=4000 python examples/…`.
BASE_URL = os.environ.get("BASE_URL") or f"http://127.0.0.1:{os.environ.get('PORT') or 3000}"
# Devnet wallet #5: USDC on eip155:84532 only, so a testnet wallet. Bring your own key elsewhere.
account = Account.from_key(
    os.environ.get("WALLET_KEY", "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba")
)


def call(session, path, body):
    response = session.post(f"{BASE_URL}{path}", json=body)
    envelope = response.json()
    if not envelope["success"]:
        error = envelope["error"]
        raise SystemExit(f"{path}: {response.status_code} {error['code']}: {error['message']}")
    settlement = decode_payment_response_header(response.headers["PAYMENT-RESPONSE"])
    return envelope["data"], settlement.transaction


def main():
    # The service picks a wallet's network from its history; GET /positions (free) says which.
    network = requests.get(f"{BASE_URL}/positions", params={"wallet": account.address}).json()["data"]["network"]

    client = x402ClientSync()
    client.register("eip155:*", ExactEvmScheme(signer=EthAccountSigner(account)))
    client.register_policy(prefer_network(network))  # a 402 without the hint offers production first

    session = x402_requests(client)
    session.headers["X-Wallet-Address"] = account.address  # the hint: the 402 offers only this wallet's network

    print(f"wallet  {account.address} pays on {network}")
    token, tx = call(session, "/tokens", {"name": "Python Cat", "symbol": "PYCAT"})
    print(f"create  {token['tokenId']} {token['symbol']} on {token['network']}  tx {tx}")
    bought, tx = call(session, "/entrypoints/token_buy_usd", {"tokenId": token["tokenId"], "usdAmount": "2"})
    print(f"buy     {bought['tokensReceived']} tokens for ${bought['usdSpent']}  tx {tx}")
    info, tx = call(session, "/entrypoints/token_info", {"tokenId": token["tokenId"]})
    print(f"info    price ${info['priceUsd']}, {info['holders']} holder(s)  tx {tx}")


try:
    main()
except requests.exceptions.ConnectionError:  # one line, not a traceback: nothing listening is the usual first one
    raise SystemExit(f"nothing answers at {BASE_URL} — start the service with `npm start`, or set PORT (or BASE_URL) to where it listens")
