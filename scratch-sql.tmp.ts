import { createRequire } from 'node:module';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const require = createRequire(import.meta.url);
const sqlite3 = require('sqlite3');
const log: string[] = [];
let on = false;
const sqlOf = new WeakMap();
const prep = sqlite3.Database.prototype.prepare;
sqlite3.Database.prototype.prepare = function (sql: string, ...r: any[]) { const s = prep.call(this, sql, ...r); sqlOf.set(s, sql); return s; };
for (const m of ['all', 'run', 'get', 'exec']) { const f = sqlite3.Database.prototype[m]; sqlite3.Database.prototype[m] = function (sql: string, ...r: any[]) { if (on) log.push('DB ' + sql.slice(0, 140)); return f.call(this, sql, ...r); }; }
for (const m of ['all', 'run', 'get']) { const f = sqlite3.Statement.prototype[m]; sqlite3.Statement.prototype[m] = function (...r: any[]) { if (on) log.push((sqlOf.get(this) ?? '?').replace(/\s+/g, ' ').slice(0, 160)); return f.apply(this, r); }; }
const { startTestService } = await import('./test/support/service.ts');
const { devAccount, payingFetch } = await import('./test/support/x402-client.ts');
const { MikroOrmUnitOfWork } = await import('./src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.ts');
const dir = mkdtempSync(join(tmpdir(), 'scratch-'));
const uow = await MikroOrmUnitOfWork.open({ url: `sqlite:${join(dir, 's.db')}` });
const s = await startTestService({ uow });
const a = devAccount(5);
const pay = payingFetch(a);
const c = await pay(`${s.url}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': a.address }, body: JSON.stringify({ name: 'B', symbol: 'BB' }) });
const tokenId = ((await c.json()) as any).data.tokenId;
for (let i = 0; i < 3; i++) {
  if (i === 2) on = true;
  const r = await pay(`${s.url}/entrypoints/token_buy_usd`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-wallet-address': a.address }, body: JSON.stringify({ tokenId, usdAmount: '0.01' }) });
  await r.text();
}
on = false;
console.log(log.length + ' statements'); console.log(log.join('\n'));
await s.stop();
