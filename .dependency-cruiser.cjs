/**
 * The import direction inside @mmmq/broker and @mmmq/consumer, checked by `pnpm lint` (ARCHITECTURE.md draws it): a
 * folder may import the folders listed before it, never one after it; no file imports itself in a cycle.
 */

/** packages/broker/src, from the bottom up. The files at the root (the module and its options) come last. */
const BROKER_LAYERS = [
  ['config', 'events', 'format'],
  ['storage'],
  ['topics'],
  ['retention'],
  ['deduplication'],
  ['publish'],
  ['dispatch'],
  ['pull'],
  ['seek'],
  ['transactions'],
  ['replies'],
  ['in-process'],
  ['overview'],
  ['tls'],
  ['security'],
  ['http'],
  ['stream'],
  ['console', 'metrics', 'health'],
];

/** packages/consumer/src, from the bottom up. */
const CONSUMER_LAYERS = [
  ['errors', 'support'],
  ['listener'],
  ['config'],
  ['registration'],
  ['inbox'],
  ['reply'],
  ['handling'],
  ['transport'],
  ['pull'],
  ['http'],
  ['health', 'metrics', 'asyncapi'],
  ['runtime'],
];

const folders = (layers) => layers.flat().join('|');

/** One rule per layer: its folders may not import the folders of any layer above it, nor the package's root files. */
function layerRules(pkg, layers) {
  return layers.map((layer, index) => {
    const above = layers.slice(index + 1).flat();
    const targets = [`^packages/${pkg}/src/[^/]+\\.ts$`];
    if (above.length > 0) targets.push(`^packages/${pkg}/src/(${above.join('|')})/`);
    return {
      name: `${pkg}-layer-${layer.join('+')}`,
      comment: `packages/${pkg}/src/{${layer.join(',')}} may import only the folders below it (ARCHITECTURE.md)`,
      severity: 'error',
      from: { path: `^packages/${pkg}/src/(${layer.join('|')})/` },
      to: { path: targets },
    };
  });
}

/** A folder of the package that the layer list does not place: add it to the list. */
function unplacedFolder(pkg, layers) {
  return {
    name: `${pkg}-folder-placed`,
    comment: `every folder of packages/${pkg}/src belongs to a layer in .dependency-cruiser.cjs`,
    severity: 'error',
    from: { path: `^packages/${pkg}/src/[^/]+/`, pathNot: `^packages/${pkg}/src/(${folders(layers)})/` },
    to: {},
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'a file that imports itself through others: split out what both need',
      severity: 'error',
      from: { path: '^packages/(broker|consumer)/src/' },
      to: { circular: true },
    },
    ...layerRules('broker', BROKER_LAYERS),
    unplacedFolder('broker', BROKER_LAYERS),
    ...layerRules('consumer', CONSUMER_LAYERS),
    unplacedFolder('consumer', CONSUMER_LAYERS),
  ],
  options: {
    includeOnly: '^packages/(broker|consumer)/src/',
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  },
};
