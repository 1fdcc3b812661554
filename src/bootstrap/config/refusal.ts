/**
 * One sentence per bad setting, naming it, what it holds and what it must be — what an operator
 * reads in place of zod's issue list (`PORT: Invalid input: expected number, received NaN`).
 */
import { z } from 'zod';
import type { Env } from './env-values.js';

/** Settings whose values are secrets or may carry credentials: a refusal names them, never echoes them. */
const SECRET = /KEY|URL/;

/** Every bad setting once, in the schema's order, one line each. */
export function refusals(schema: z.ZodObject, env: Env, issues: readonly z.core.$ZodIssue[]): string {
  const named = new Map<string, string>();
  for (const issue of issues) {
    const key = String(issue.path[0] ?? '');
    if (!named.has(key)) named.set(key, refusal(schema, key, env[key], issue));
  }
  return [...named.values()].join('\n');
}

function refusal(schema: z.ZodObject, key: string, value: string | undefined, issue: z.core.$ZodIssue): string {
  const shown = value === undefined || SECRET.test(key) || value.length > 60 ? key : `${key} is ${JSON.stringify(value)}, but it`;
  return `Invalid configuration: ${shown} ${requirement(schema, key, issue)}.`;
}

function requirement(schema: z.ZodObject, key: string, issue: z.core.$ZodIssue): string {
  if (issue.code === 'custom' || (issue.code === 'invalid_format' && issue.format === 'regex')) return issue.message;
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map(String).join(', ')}`;
  if (issue.code === 'invalid_format' && issue.format === 'url') return 'must be a URL';
  let field = schema.shape[key] as z.ZodType | undefined;
  while (field && 'unwrap' in field && typeof field.unwrap === 'function') field = (field.unwrap as () => z.ZodType)();
  if (field instanceof z.ZodNumber) {
    const { minValue: min, maxValue: max } = field;
    const kind = field.isInt ? 'a whole number' : 'a number';
    if (min !== null && max !== null && max < Number.MAX_SAFE_INTEGER) return `must be ${kind} from ${min} to ${max}`;
    if (min !== null) return `must be ${kind}, at least ${min}`;
    return `must be ${kind}`;
  }
  return issue.message.replace(/^Invalid input: /, 'must be valid: ');
}
