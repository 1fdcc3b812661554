/**
 * The house rule (STYLE.md): dependencies point inward only,
 * adapters → app → ports → domain. Only the composition root names adapters.
 */
module.exports = {
  forbidden: [
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
      comment: 'Use cases talk to ports; only compose.ts builds adapters.',
      severity: 'error',
      from: { path: '^src/app', pathNot: '^src/app/compose\\.ts$' },
      to: { path: '^src/(adapters|main)' },
    },
    {
      name: 'adapters-do-not-import-each-other',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+/[^/]+)/' },
      to: { path: '^src/adapters/', pathNot: ['^src/adapters/$1/', '^src/adapters/shared/'] },
    },
    {
      name: 'nobody-imports-the-composition-root',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/main\\.ts$' },
      to: { path: '^src/app/compose\\.ts$' },
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
