/**
 * The house rule (docs/architecture.md): dependencies point inward only,
 * adapters → app → ports → domain. Only the composition root names adapters.
 */
module.exports = {
  forbidden: [
    {
      name: 'inner-layers-do-not-know-the-root',
      comment: 'domain, ports and adapters never reach the composition root.',
      severity: 'error',
      from: { path: '^src/(domain|ports|adapters)' },
      to: { path: '^src/(bootstrap|main)' },
    },
    {
      name: 'domain-is-pure',
      comment: 'src/domain imports nothing outside src/domain (no frameworks, no I/O).',
      severity: 'error',
      from: { path: '^src/domain' },
      to: { pathNot: '^src/domain' },
    },
    {
      name: 'ports-only-see-domain',
      severity: 'error',
      from: { path: '^src/ports' },
      to: { pathNot: '^src/(domain|ports)' },
    },
    {
      name: 'app-does-not-know-adapters',
      comment: 'Use cases talk to ports; only src/bootstrap builds adapters. No exception.',
      severity: 'error',
      from: { path: '^src/app' },
      to: { path: '^src/(adapters|bootstrap|main)' },
    },
    {
      name: 'the-app-checksums-addresses-in-one-place',
      comment:
        'viem is a technology: the app reaches it through ports (signatures, token issuer, ...). Its one exception is ' +
        'src/app/kit/address.ts (checksummed): a pure function on a string, where a port would be ceremony.',
      severity: 'error',
      from: { path: '^src/app/', pathNot: '^src/app/kit/address\\.ts$' },
      to: { path: 'node_modules/viem/' },
    },
    {
      name: 'adapters-do-not-import-each-other',
      comment:
        'src/adapters/<concern>/<technology>/ is one adapter: it imports its own folder, its concern\'s kit ' +
        '(src/adapters/<concern>/kit/, what that concern\'s technologies share) and the kits every concern ' +
        'may use (src/adapters/kit/: evm, fakes) — never another technology folder. Kits hold no adapter ' +
        'and import only kits.',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+)/([^/]+)/' },
      to: { path: '^src/adapters/', pathNot: ['^src/adapters/$1/$2/', '^src/adapters/$1/kit/', '^src/adapters/kit/'] },
    },
    {
      name: 'kits-never-import-the-app',
      comment:
        'A kit (src/adapters/kit/, src/adapters/<concern>/kit/) is what adapters share about a technology or a ' +
        'protocol: it knows no use case, no catalogue, no setting. What needs the app lives in an adapter.',
      severity: 'error',
      from: { path: ['^src/adapters/kit/', '^src/adapters/[^/]+/kit/'] },
      to: { path: '^src/(app|bootstrap|main)' },
    },
    {
      name: 'rooms-are-entered-by-their-door',
      comment:
        'src/app is a room per feature (docs/architecture.md "Rooms"): src/app/<room>/ holds its catalogue entries, ' +
        'schemas, use cases and views. Another room, or a file at src/app\'s root (the application, the catalogue\'s ' +
        'assembly), uses a room only through its door, src/app/<room>/index.ts, which names what the room offers; ' +
        'its other files are its insides. src/app/kit/ is the shared ground every room stands on (settings, deps, ' +
        'paid, the schemas\' primitives, views, the catalogue\'s types): all of it is open. Tests and adapters may ' +
        'reach a room\'s files directly.',
      severity: 'error',
      from: { path: '^src/app/([^/]+)/' },
      to: { path: '^src/app/[^/]+/', pathNot: ['^src/app/$1/', '^src/app/[^/]+/index\\.ts$', '^src/app/kit/'] },
    },
    {
      name: 'the-app-root-enters-rooms-by-their-door',
      comment: 'The files at src/app\'s root use a room only through its index.ts (see rooms-are-entered-by-their-door).',
      severity: 'error',
      from: { path: '^src/app/[^/]+\\.ts$' },
      to: { path: '^src/app/[^/]+/', pathNot: ['^src/app/[^/]+/index\\.ts$', '^src/app/kit/'] },
    },
    {
      name: 'no-circular-in-the-app',
      comment:
        'No circle among src/app\'s files, hence none among its rooms: stacked by their imports, rooms stand on ' +
        'kit and pricing, never on a room above them (no-circular below holds the same for all of src).',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: '^src/app/', circular: true },
    },
    {
      name: 'nobody-imports-the-composition-root',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/service-main\\.ts$', '^src/mcp-bridge\\.ts$', '^src/bootstrap/'] },
      to: { path: '^src/bootstrap/' },
    },
    {
      name: 'no-undeclared-packages',
      comment:
        'Every package src imports is named in package.json: one that only resolves because another package ' +
        'brings it (hoisted) changes or goes when that one does.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
