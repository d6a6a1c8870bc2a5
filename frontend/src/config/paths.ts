export const paths = {
  tradeoffs: { path: '/tradeoffs', label: 'Trade-offs' },
  history: { path: '/history', label: 'History' },
  compare: { path: '/compare', label: 'Compare' },
  changes: { path: '/changes', label: 'Changes' },
  recommend: { path: '/recommend', label: 'Recommend' },
  runs: { path: '/runs', label: 'Runs' },
  machines: { path: '/machines', label: 'Machines' },
  configurations: { path: '/configurations', label: 'Configurations' },
  io: { path: '/io', label: 'End-to-end I/O' },
  lossy: { path: '/lossy', label: 'Lossy floats' },
  arena: { path: '/arena', label: 'Codec arena' },
} as const;
