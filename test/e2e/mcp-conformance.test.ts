/**
 * The official MCP conformance suite's server scenarios against our /mcp (decision 0042), run with
 * the Node 22 it needs from `.cache/conformance` (test/support/mcp-conformance.ts; the first run
 * installs it from the registry). Every scenario the suite runs is either one that must pass or
 * one declined for a reason the decision record gives; a declined one that starts passing fails
 * here too, so the lists stay true.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { ensureConformanceSuite, runServerScenarios, type ConformanceCheck } from '../support/mcp-conformance.js';
import { startTestService } from '../support/service.js';

const MUST_PASS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection', 'resources-list', 'prompts-list', 'logging-set-level'];

const FIXTURE_TOOL = "calls one of the suite's fixture tools (test_*), which a launchpad does not have";
const DECLINED: Record<string, string> = {
  'tools-call-simple-text': FIXTURE_TOOL,
  'tools-call-image': FIXTURE_TOOL,
  'tools-call-audio': FIXTURE_TOOL,
  'tools-call-embedded-resource': FIXTURE_TOOL,
  'tools-call-mixed-content': FIXTURE_TOOL,
  'tools-call-error': `${FIXTURE_TOOL}; our tool errors are test/e2e/mcp.test.ts's`,
  'tools-call-with-logging': FIXTURE_TOOL,
  'tools-call-with-progress': FIXTURE_TOOL,
  'tools-call-sampling': `${FIXTURE_TOOL}; a stateless server never calls back into the client`,
  'tools-call-elicitation': `${FIXTURE_TOOL}; a stateless server never calls back into the client`,
  'elicitation-sep1034-defaults': `${FIXTURE_TOOL}; a stateless server never calls back into the client`,
  'elicitation-sep1330-enums': `${FIXTURE_TOOL}; a stateless server never calls back into the client`,
  'resources-read-text': "reads the suite's fixture resource test://static-text",
  'resources-read-binary': "reads the suite's fixture resource test://static-binary",
  'resources-templates-read': "reads the suite's fixture template test://template/{id}/data",
  'resources-subscribe': 'stateless (decision 0029): no session to send resource updates to',
  'resources-unsubscribe': 'stateless (decision 0029): no session to send resource updates to',
  'prompts-get-simple': "gets the suite's fixture prompt test_simple_prompt",
  'prompts-get-with-args': "gets the suite's fixture prompt test_prompt_with_arguments",
  'prompts-get-embedded-resource': "gets the suite's fixture prompt test_prompt_with_embedded_resource",
  'prompts-get-with-image': "gets the suite's fixture prompt test_prompt_with_image",
  'completion-complete': "completes an argument of the suite's fixture prompt test_prompt_with_arguments",
  'server-sse-multiple-streams': 'stateless (decision 0029): no session id, so the suite only warns',
};

let service: RunningService;
let results: Map<string, ConformanceCheck[]>;

beforeAll(async () => {
  await ensureConformanceSuite();
  service = await startTestService();
  // The DNS-rebinding scenario needs a loopback name in the URL: it sends that Host and Origin as the valid pair.
  results = await runServerScenarios(`http://localhost:${new URL(service.url).port}/mcp`);
}, 300_000);
afterAll(async () => {
  await service?.stop();
});

const failures = (checks: ConformanceCheck[]) => checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.id}: ${c.errorMessage ?? c.status}`);

describe('the MCP conformance suite, server scenarios', () => {
  it.each(MUST_PASS)('%s passes', (scenario) => {
    const checks = results.get(scenario);
    expect(checks, `${scenario} did not run`).toBeDefined();
    expect(checks!.filter((c) => c.status === 'SUCCESS').length).toBeGreaterThan(0);
    expect(failures(checks!)).toEqual([]);
  });

  it('every other scenario is declined for a reason, and none of those passes unnoticed', () => {
    const unknown = [...results.keys()].filter((s) => !MUST_PASS.includes(s) && !(s in DECLINED));
    expect(unknown, 'scenarios neither required nor declined (decision 0042)').toEqual([]);
    const passing = Object.keys(DECLINED).filter((s) => results.has(s) && failures(results.get(s)!).length === 0);
    expect(passing, 'declined scenarios that now pass: move them to MUST_PASS').toEqual([]);
  });
});
