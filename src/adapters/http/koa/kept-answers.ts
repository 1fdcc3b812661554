/**
 * Kept answers, before the framework (decision 0052): a plain `GET` of a catalogue read that keeps
 * its answer (`kept` in src/app/kit/catalogue/operation.ts — a token's view the change feed vouches
 * for) is answered here, on Node's request, with the bytes the Koa route would send and the
 * headers it would set: X-Request-Id, API-Version, `Vary: Origin`, the free budget's RateLimit
 * headers, the latency observation and the access line. It is what the hottest read of the API
 * (a page or an agent polling a token) costs: no context, no middleware chain, no router walk.
 * `GET /health` is answered here too (decision 0062), when its report says 200: a load balancer
 * polls it, and it costs what a kept read costs — its probes are at most a second old, its
 * counters read as they stand.
 *
 * Anything else goes on to Koa untouched: another method or path, a query string, an escaped or
 * invalid parameter, an Origin (CORS is Koa's), `Cache-Control: no-cache` (a fresh read), no kept
 * answer this instant, a health report that is not 200 (Koa's 503 with its Retry-After), or a
 * request the free budget refuses — which Koa's limiter then refuses with the decision already
 * taken here (rate-limit.ts), so a request is counted once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AnyRead, ReadDeps } from '../../../app/kit/catalogue/operation.js';
import type { IdGenerator } from '../../../ports/id-generator.js';
import type { Logger } from '../../../ports/logger.js';
import type { Metrics } from '../../../ports/metrics.js';
import { clientKeyOf, clientOf, type TrustProxy } from './client-ip.js';
import { recordAnswered } from './observe-requests.js';
import { budgetHeaders, countOnce, type FreeBudget } from './rate-limit.js';
import { successEnvelope } from '../../../app/kit/error-status.js';
import { envelopeBytes } from './read-routes.js';
import { API_VERSION, requestIdOf } from './request-context.js';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface KeptAnswersOptions {
  deps: ReadDeps;
  reads: readonly AnyRead[];
  ids: IdGenerator;
  logger: Logger;
  metrics: Metrics;
  trustProxy: TrustProxy;
  /** The free budget (docs/rate-limits.md) a kept answer is counted against, as any free read is. */
  budget?: FreeBudget | undefined;
  /** `GET /health`'s report (the application's), known at once or awaited; left to Koa without it. */
  health?: (() => HealthReport | Promise<HealthReport>) | undefined;
}

interface KeptRoute {
  op: AnyRead & { kept: NonNullable<AnyRead['kept']> };
  /** The path, anchored, one group per path parameter. */
  pattern: RegExp;
  /** The input field each group fills, in order. */
  fields: string[];
}

/** An answer sent here: the route template its metric and access line name, and its bytes. */
interface Answer {
  route: string;
  body: Buffer;
}

/**
 * A request answered here: its answer as first found, or — `afterCount`, a round trip to the free
 * budget's store later — as it stands then; none is Koa's to answer.
 */
type Answering = (afterCount?: boolean) => Answer | undefined | Promise<Answer | undefined>;

const HEALTH = '/health';

/** The handler in front of Koa's: answers what it can, hands everything else to `next` as it came. */
export function keptAnswers(o: KeptAnswersOptions): (req: IncomingMessage, res: ServerResponse, next: NodeHandler) => unknown {
  const routes = o.reads.flatMap((op): KeptRoute[] => (op.kept && (op.http.method ?? 'get') === 'get' ? [keptRoute(op as KeptRoute['op'])] : []));
  if (routes.length === 0 && !o.health) return (req, res, next) => next(req, res);
  return (req, res, next) => {
    const answering = req.method === 'GET' ? answeringOf(o, routes, req) : undefined;
    if (!answering) return next(req, res);
    if (o.budget) return counted(o, o.budget, answering, req, res, next);
    const started = process.hrtime.bigint();
    return answered(o, answering(), req, res, next, started, []);
  };
}

/** How a plain request is answered here, or undefined for anything Koa should see. */
function answeringOf(o: KeptAnswersOptions, routes: KeptRoute[], req: IncomingMessage): Answering | undefined {
  const url = req.url ?? '';
  const h = req.headers;
  if (url.includes('?') || url.includes('%') || h.origin !== undefined || (h['cache-control'] !== undefined && /\bno-cache\b/i.test(h['cache-control']))) return undefined;
  if (url === HEALTH && o.health) return healthAnswering(o.health);
  for (const route of routes) {
    const m = route.pattern.exec(url);
    if (!m) continue;
    const input: Record<string, string> = {};
    route.fields.forEach((field, i) => (input[field] = m[i + 1]!));
    const parsed = route.op.inputSchema.safeParse(input);
    if (!parsed.success) return undefined;
    const found = keptAnswer(route.op, o.deps, parsed.data);
    // Nothing kept this instant: Koa's route reads it (and keeps it for the next request).
    return found && ((afterCount) => (afterCount ? keptAnswer(route.op, o.deps, parsed.data) : found));
  }
  return undefined;
}

/** The entry's kept answer; one that fails to say is no answer here (Koa's route runs and reports it). */
function keptAnswer(op: KeptRoute['op'], deps: ReadDeps, input: unknown): Answer | undefined {
  let answer: object | undefined;
  try {
    answer = op.kept(deps, input);
  } catch {
    return undefined;
  }
  return answer && { route: op.http.path, body: envelopeBytes(op, answer) };
}

/** The bytes of each health document: the application answers the same object while nothing in it moved. */
const healthBodies = new WeakMap<object, Buffer>();

type HealthReport = { report: object; required: boolean };

/** /health's report when it is a 200; a 503 (the database down) or a report that fails is Koa's route's to answer. */
const healthAnswering =
  (health: NonNullable<KeptAnswersOptions['health']>): Answering =>
  () => {
    const known = health();
    return known instanceof Promise ? known.then(healthAnswer, () => undefined) : healthAnswer(known);
  };

function healthAnswer({ report, required }: HealthReport): Answer | undefined {
  if (!required) return undefined;
  let body = healthBodies.get(report);
  if (!body) healthBodies.set(report, (body = Buffer.from(JSON.stringify(successEnvelope('health', report)))));
  return { route: HEALTH, body };
}

/** Counted against the free budget first; a request it refuses goes to Koa with the decision, to be refused there. */
async function counted(o: KeptAnswersOptions, budget: FreeBudget, answering: Answering, req: IncomingMessage, res: ServerResponse, next: NodeHandler) {
  const started = process.hrtime.bigint();
  const key = clientKeyOf(req, budget.trustProxy);
  // A budget that cannot be asked (its store down) is Koa's to answer, with the same failure, as for any other request.
  const decision = await countOnce(budget, req, key).catch(() => undefined);
  if (!decision?.allowed) return next(req, res);
  // The answer as it stands now, after the count's round trip (Redis): what Koa's route would read at this point.
  return answered(o, answering(true), req, res, next, started, budgetHeaders(budget, decision));
}

/** Sends `answer` once known; none is Koa's to answer. */
function answered(o: KeptAnswersOptions, answer: ReturnType<Answering>, req: IncomingMessage, res: ServerResponse, next: NodeHandler, started: bigint, budget: [string, string][]): unknown {
  if (answer instanceof Promise) return answer.then((known) => answered(o, known, req, res, next, started, budget));
  return answer ? guarded(o, answer, req, res, next, started, budget) : next(req, res);
}

/** `send`, never throwing: a failure before anything was written is Koa's to answer (the request is counted already). */
function guarded(o: KeptAnswersOptions, answer: Answer, req: IncomingMessage, res: ServerResponse, next: NodeHandler, started: bigint, budget: [string, string][]): unknown {
  try {
    send(o, answer, req, res, started, budget);
    return undefined;
  } catch (e) {
    o.logger.error('a kept answer failed', { path: req.url, answered: res.headersSent, error: e instanceof Error ? e.message : String(e) });
    if (res.headersSent) return undefined; // answered; only its metric or access line is missing
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    return next(req, res);
  }
}

function send(o: KeptAnswersOptions, answer: Answer, req: IncomingMessage, res: ServerResponse, started: bigint, budget: [string, string][]): void {
  const requestId = requestIdOf(single(req.headers['x-request-id']), o.ids);
  const { body } = answer;
  res.statusCode = 200;
  res.setHeader('X-Request-Id', requestId);
  res.setHeader('API-Version', API_VERSION);
  res.setHeader('Vary', 'Origin');
  for (const [name, value] of budget) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  res.end(body);
  recordAnswered(o.logger, o.metrics, {
    requestId,
    method: 'GET',
    path: req.url ?? '',
    route: answer.route,
    status: 200,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    client: () => clientOf(req, o.trustProxy),
  });
}

function keptRoute(op: KeptRoute['op']): KeptRoute {
  const fields: string[] = [];
  const source = op.http.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_, name: string) => {
    fields.push(op.http.params?.[name] ?? name);
    return '([^/]+)';
  });
  return { op, pattern: new RegExp(`^${source}$`), fields };
}

const single = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
