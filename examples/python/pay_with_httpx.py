"""Pay the launchpad with the official x402 Python SDK over httpx (async).

    pip install "x402[evm,httpx]"
    python examples/python/pay_with_httpx.py     # PORT (or BASE_URL) and WALLET_KEY override the defaults
"""

import asyncio
import os

import httpx
from eth_account import Account
from x402 import prefer_network, x402Client
from x402.http import decode_payment_response_header
from x402.http.clients import x402HttpxClient
from x402.mechanisms.evm import EthAccountSigner
from x402.mechanisms.evm.exact import ExactEvmScheme

# The service's own setting: `PORT=4000 npm start` pairs with `PORT=4000 python examples/…`.
BASE_URL = os.environ.get("BASE_URL") or f"http://127.0.0.1:{os.environ.get('PORT') or 3000}"
# Devnet wallet #1: USDC on eip155:8453, so a production wallet. Bring your own key elsewhere.
account = Account.from_key(
    os.environ.get("WALLET_KEY", "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
)


async def main():
    # The service picks a wallet's network from its history; GET /positions (free) says which.
    async with httpx.AsyncClient() as plain:
        positions = await plain.get(f"{BASE_URL}/positions", params={"wallet": account.address})
    network = positions.json()["data"]["network"]

    client = x402Client()
    client.register("eip155:*", ExactEvmScheme(signer=EthAccountSigner(account)))
    client.register_policy(prefer_network(network))  # a 402 without the hint offers production first

    # The hint: the 402 offers only this wallet's network.
    async with x402HttpxClient(client, headers={"X-Wallet-Address": account.address}) as http:

        async def call(path, body):
            response = await http.post(f"{BASE_URL}{path}", json=body)
            envelope = response.json()
            if not envelope["success"]:
                error = envelope["error"]
                raise SystemExit(f"{path}: {response.status_code} {error['code']}: {error['message']}")
            settlement = decode_payment_response_header(response.headers["PAYMENT-RESPONSE"])
            return envelope["data"], settlement.transaction

        print(f"wallet  {account.address} pays on {network}")
        token, tx = await call("/tokens", {"name": "Async Cat", "symbol": "ACAT"})
        print(f"create  {token['tokenId']} {token['symbol']} on {token['network']}  tx {tx}")
        bought, tx = await call("/entrypoints/token_buy_usd", {"tokenId": token["tokenId"], "usdAmount": "2"})
        print(f"buy     {bought['tokensReceived']} tokens for ${bought['usdSpent']}  tx {tx}")
        info, tx = await call("/entrypoints/token_info", {"tokenId": token["tokenId"]})
        print(f"info    price ${info['priceUsd']}, {info['holders']} holder(s)  tx {tx}")


try:
    asyncio.run(main())
except httpx.TransportError:  # one line, not a traceback: nothing listening is the usual first one
    raise SystemExit(f"nothing answers at {BASE_URL} — start the service with `npm start`, or set PORT (or BASE_URL) to where it listens")
