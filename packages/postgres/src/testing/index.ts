export { freePort, ThrowawayCluster, type ThrowawayClusterOptions } from './ThrowawayCluster.js';
