/**
 * The stack's throughput and memory settings, apart from the CDK code so that the load model
 * (scripts/load-model.ts) reads the same values without loading aws-cdk-lib.
 */

/** The `$default` stage's throttle: requests per second and burst, for the whole API. */
export const THROTTLE = { rateLimit: 100, burstLimit: 200 };
export const MEMORY_MB = 1024;
// Lambda gives CPU in proportion to memory, one whole vCPU at 1,769 MB. A scrypt hash uses
// one core for about half a second: at 1,024 MB (0.58 vCPU) it takes 1.7 times as long for
// about the same GB-seconds, so the functions that hash get the whole vCPU.
export const HASHING_MEMORY_MB = 1769;
