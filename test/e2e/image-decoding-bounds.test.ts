/**
 * Issue 51 over HTTP, with the real decoder (sharp): a 200 KB progressive JPEG of 2,647 scans
 * (each only end-of-block runs) once cost 20 s of CPU before its 402 — decoded twice — and four at
 * once held another client's 5 KB upload for minutes. Now it is refused before any decoding, and
 * four at once leave a normal upload's 402 as quick as ever. CPU is measured, not wall time: the
 * service runs in this process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { dataUrl, pngFixture, scanBombJpeg } from '../support/images.js';
import { json, startTestService } from '../support/service.js';
import { devAccount } from '../support/x402-client.js';

const wallet = devAccount(5).address;
let service: RunningService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.stop();
});

const create = (image: string, name = 'Picture') =>
  fetch(`${service.url}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wallet-address': wallet },
    body: JSON.stringify({ name, symbol: 'PIC', image }),
  });

/** The bomb with a comment segment of its own: other bytes, another sha256, so no decode is shared. */
const bombNumber = (n: number) => {
  const bomb = scanBombJpeg();
  return Buffer.concat([bomb.subarray(0, 2), Buffer.from([0xff, 0xfe, 0x00, 0x04, n >> 8, n & 0xff]), bomb.subarray(2)]);
};

const cpuSince = (started: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1e6;
};

describe('image decoding bounded before the price', () => {
  it('the scan-bomb JPEG is answered 422 IMAGE_TOO_COMPLEX, no 402, within a second of CPU', async () => {
    const started = process.cpuUsage();
    const res = await create(dataUrl(bombNumber(0), 'image/jpeg'));
    const cpu = cpuSince(started);
    expect(res.status).toBe(422);
    expect(res.headers.get('payment-required')).toBeNull();
    expect((await json(res)).error).toMatchObject({ code: 'IMAGE_TOO_COMPLEX', details: { format: 'jpeg', what: 'scans', max: 64 } });
    expect(cpu).toBeLessThan(1);
  });

  it('four bombs at once beside a normal upload: the bombs are refused, the normal upload gets its 402 within seconds', async () => {
    const normal = dataUrl(await pngFixture(640, 480));
    const bombs = [1, 2, 3, 4].map((n) => dataUrl(bombNumber(n), 'image/jpeg'));
    const started = process.cpuUsage();
    const t0 = Date.now();
    const normalAnswer = create(normal, 'Normal').then((res) => ({ res, ms: Date.now() - t0 }));
    const answers = await Promise.all(bombs.map((b) => create(b)));
    const { res, ms } = await normalAnswer;
    const cpu = cpuSince(started);
    for (const answer of answers) {
      expect(answer.status).toBe(422);
      expect((await json(answer)).error.code).toBe('IMAGE_TOO_COMPLEX');
    }
    expect(res.status).toBe(402);
    expect(res.headers.get('payment-required')).toBeTruthy();
    // Four bombs cost 80 s of CPU before; now all five requests together cost about what the PNG's decode does.
    expect(cpu).toBeLessThan(2);
    expect(ms).toBeLessThan(10_000); // generous: the machine may be loaded; before, minutes
  });
});
