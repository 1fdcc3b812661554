/** A setting the service cannot start with; src/main.ts prints its message alone. */
export class ConfigError extends Error {}
