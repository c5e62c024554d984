// A cycle makes the order of module evaluation decide what is initialised: never allowed.
// (ESLint's import plugins resolve through native binaries the lockfile cannot hold for every
// platform; dependency-cruiser is plain JavaScript.)
module.exports = {
  forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }],
  options: {
    doNotFollow: { path: 'node_modules' },
    // A benchmark that fails keeps its scratch build there, for its logs.
    exclude: { path: '^bench/results/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
