/**
 * The official MCP conformance suite's server scenarios against our /mcp (decisions 0042 and 0071),
 * in two releases (test/support/mcp-conformance.ts; the first run installs them from the registry):
 * 0.1.16 on the 2025 revisions (initialize) and 0.2.0-alpha.12 on what 2026-07-28 requires. Every
 * scenario a suite runs is either one that must pass or one declined for a reason the decision
 * records; a declined one that starts passing fails here too, so the lists stay true. A scenario
 * may pass but for some checks, each declined by name with its reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/bootstrap/compose.js';
import { ensureConformanceSuites, runServerScenarios, type ConformanceCheck, type SuiteName } from '../support/mcp-conformance.js';
import { startTestService } from '../support/service.js';

const FIXTURE_TOOL = "calls one of the suite's fixture tools (test_*), which a launchpad does not have";
const CALLS_BACK = `${FIXTURE_TOOL}; a stateless server never calls back into the client`;
const ASKS_INPUT = `${FIXTURE_TOOL}; no tool of ours asks the client for input (input_required)`;
const TASKS = "the Tasks extension (SEP-2663, not scored for 2026-07-28): we declare no tasks, and it calls the suite's fixture tools";
const STATELESS = 'stateless (decision 0029): no session to send resource updates to';

interface SuitePlan {
  mustPass: string[];
  /** Scenarios that must pass but for these checks (check id → reason). */
  declinedChecks: Record<string, Record<string, string>>;
  declined: Record<string, string>;
}

const PLANS: Record<SuiteName, SuitePlan> = {
  stable: {
    mustPass: ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection', 'resources-list', 'prompts-list', 'logging-set-level'],
    declinedChecks: {},
    declined: {
      'tools-call-simple-text': FIXTURE_TOOL,
      'tools-call-image': FIXTURE_TOOL,
      'tools-call-audio': FIXTURE_TOOL,
      'tools-call-embedded-resource': FIXTURE_TOOL,
      'tools-call-mixed-content': FIXTURE_TOOL,
      'tools-call-error': `${FIXTURE_TOOL}; our tool errors are test/e2e/mcp.test.ts's`,
      'tools-call-with-logging': FIXTURE_TOOL,
      'tools-call-with-progress': FIXTURE_TOOL,
      'tools-call-sampling': CALLS_BACK,
      'tools-call-elicitation': CALLS_BACK,
      'elicitation-sep1034-defaults': CALLS_BACK,
      'elicitation-sep1330-enums': CALLS_BACK,
      'resources-read-text': "reads the suite's fixture resource test://static-text",
      'resources-read-binary': "reads the suite's fixture resource test://static-binary",
      'resources-templates-read': "reads the suite's fixture template test://template/{id}/data",
      'resources-subscribe': STATELESS,
      'resources-unsubscribe': STATELESS,
      'prompts-get-simple': "gets the suite's fixture prompt test_simple_prompt",
      'prompts-get-with-args': "gets the suite's fixture prompt test_prompt_with_arguments",
      'prompts-get-embedded-resource': "gets the suite's fixture prompt test_prompt_with_embedded_resource",
      'prompts-get-with-image': "gets the suite's fixture prompt test_prompt_with_image",
      'completion-complete': "completes an argument of the suite's fixture prompt test_prompt_with_arguments",
      'server-sse-multiple-streams': 'stateless (decision 0029): no session id, so the suite only warns',
    },
  },
  next: {
    mustPass: [
      'tools-list',
      'resources-list',
      'prompts-list',
      'dns-rebinding-protection',
      'http-header-validation',
      'sep-2164-resource-not-found',
      'server-sse-multiple-streams',
      'input-required-result-unsupported-methods',
      'input-required-result-validate-input',
      'server-stateless',
      'caching',
    ],
    declinedChecks: {
      'server-stateless': {
        'sep-2575-server-rejects-undeclared-capability': "needs the suite's diagnostic tool test_missing_capability",
        'sep-2575-missing-capability-http-400': "needs the suite's diagnostic tool test_missing_capability",
        'sep-2575-http-server-no-independent-requests-on-stream': "needs the suite's diagnostic tool test_streaming_elicitation",
        'sep-2575-server-no-log-without-loglevel': "needs the suite's diagnostic tool test_logging_tool",
      },
    },
    declined: {
      'tools-call-simple-text': FIXTURE_TOOL,
      'tools-call-image': FIXTURE_TOOL,
      'tools-call-audio': FIXTURE_TOOL,
      'tools-call-embedded-resource': FIXTURE_TOOL,
      'tools-call-mixed-content': FIXTURE_TOOL,
      'tools-call-error': `${FIXTURE_TOOL}; our tool errors are test/e2e/mcp.test.ts's`,
      'tools-call-with-progress': FIXTURE_TOOL,
      'json-schema-2020-12': "lists the suite's fixture tool json_schema_2020_12_tool (our schemas are 2020-12: test/adapters/mcp/tool-listing.test.ts)",
      'resources-read-text': "reads the suite's fixture resource test://static-text",
      'resources-read-binary': "reads the suite's fixture resource test://static-binary",
      'resources-templates-read': "reads the suite's fixture template test://template/{id}/data",
      'prompts-get-simple': "gets the suite's fixture prompt test_simple_prompt",
      'prompts-get-with-args': "gets the suite's fixture prompt test_prompt_with_arguments",
      'prompts-get-embedded-resource': "gets the suite's fixture prompt test_prompt_with_embedded_resource",
      'prompts-get-with-image': "gets the suite's fixture prompt test_prompt_with_image",
      'completion-complete': "completes an argument of the suite's fixture prompt test_prompt_with_arguments",
      'http-custom-header-server-validation': 'no tool of ours declares an x-mcp-header parameter (SEP-2243 custom headers), so the suite has nothing to test',
      'input-required-result-basic-elicitation': ASKS_INPUT,
      'input-required-result-basic-sampling': ASKS_INPUT,
      'input-required-result-basic-list-roots': ASKS_INPUT,
      'input-required-result-request-state': ASKS_INPUT,
      'input-required-result-multiple-input-requests': ASKS_INPUT,
      'input-required-result-multi-round': ASKS_INPUT,
      'input-required-result-missing-input-response': ASKS_INPUT,
      'input-required-result-non-tool-request': `${ASKS_INPUT} (its fixture prompt)`,
      'input-required-result-result-type': ASKS_INPUT,
      'input-required-result-tampered-state': ASKS_INPUT,
      'input-required-result-capability-check': ASKS_INPUT,
      'input-required-result-ignore-extra-params': ASKS_INPUT,
      'tasks-capability-negotiation': TASKS,
      'tasks-dispatch-and-envelope': TASKS,
      'tasks-lifecycle': TASKS,
      'tasks-mrtr-composition': TASKS,
      'tasks-mrtr-input': TASKS,
      'tasks-request-headers': TASKS,
      'tasks-request-state-removal': TASKS,
      'tasks-required-task-error': TASKS,
      'tasks-status-notifications': `${TASKS}; the suite skips it itself for now`,
      'tasks-wire-fields': TASKS,
    },
  },
};

let service: RunningService;
const results = new Map<SuiteName, Map<string, ConformanceCheck[]>>();

beforeAll(async () => {
  await ensureConformanceSuites();
  service = await startTestService();
  // The DNS-rebinding scenario needs a loopback name in the URL: it sends that Host and Origin as the valid pair.
  const url = `http://localhost:${new URL(service.url).port}/mcp`;
  for (const suite of Object.keys(PLANS) as SuiteName[]) results.set(suite, await runServerScenarios(url, suite));
}, 600_000);
afterAll(async () => {
  await service?.stop();
});

const failures = (checks: ConformanceCheck[], declined: Record<string, string> = {}) =>
  checks.filter((c) => (c.status === 'FAILURE' || c.status === 'WARNING') && !(c.id in declined)).map((c) => `${c.id}: ${c.errorMessage ?? c.status}`);
/** Passing: something checked and nothing failed (a scenario the suite skips whole passes nothing). */
const passes = (checks: ConformanceCheck[]) => checks.some((c) => c.status === 'SUCCESS') && failures(checks).length === 0;

describe.each(Object.keys(PLANS) as SuiteName[])('the MCP conformance suite (%s), server scenarios', (suite) => {
  const plan = PLANS[suite];

  it.each(plan.mustPass)('%s passes', (scenario) => {
    const checks = results.get(suite)!.get(scenario);
    expect(checks, `${scenario} did not run`).toBeDefined();
    expect(checks!.filter((c) => c.status === 'SUCCESS').length).toBeGreaterThan(0);
    expect(failures(checks!, plan.declinedChecks[scenario])).toEqual([]);
  });

  it('every other scenario is declined for a reason, and none of those passes unnoticed', () => {
    const ran = results.get(suite)!;
    const unknown = [...ran.keys()].filter((s) => !plan.mustPass.includes(s) && !(s in plan.declined));
    expect(unknown, 'scenarios neither required nor declined (decision 0071)').toEqual([]);
    const passing = Object.keys(plan.declined).filter((s) => ran.has(s) && passes(ran.get(s)!));
    expect(passing, 'declined scenarios that now pass: move them to mustPass').toEqual([]);
    // A check declined in a passing scenario that now passes is stale too.
    const stale = Object.entries(plan.declinedChecks).flatMap(([s, checks]) =>
      Object.keys(checks).filter((id) => {
        const found = ran.get(s)?.filter((c) => c.id === id) ?? [];
        return found.length > 0 && found.every((c) => c.status === 'SUCCESS');
      }),
    );
    expect(stale, 'declined checks that now pass: remove them').toEqual([]);
  });
});
