/**
 * The command lines of the benchmarks and scripts, read strictly with node:util's parseArgs: an
 * unknown flag (`--quik`), a flag without its value or an argument the command does not take
 * stops it with the message and its usage (exit 2) — never a run with the defaults. `--help`
 * (`-h`) prints the usage.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Stops the command: the message, then the usage, on stderr; exit 2. */
export function usageError(usage: string, message: string): never {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
}

/** The flags and positionals of `args` (the command's own by default) as `config` declares them, strictly. */
export function commandLine<T extends Pick<ParseArgsConfig, 'options' | 'allowPositionals'>>(usage: string, config: T, args = process.argv.slice(2)) {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ ...config, args, strict: true });
  } catch (err) {
    return usageError(usage, (err as Error).message);
  }
}

/** A flag's value as a whole number of at least `min`, or a usage error naming the flag. */
export function wholeNumber(usage: string, name: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || value.trim() === '') usageError(usage, `${name} must be a whole number of at least ${min}, not "${value}"`);
  return n;
}
