// The compositor contract suite, for any compositor plugin: its requirements,
// what a target must provide, and the suite itself (docs/plugins.md).
export { contractSuite, type TestApi, type SuiteOptions } from './suite.js';
export { REQUIREMENTS, REQUIREMENT_IDS, ALL_CAPABILITIES, requirement, type Requirement, type RequirementId } from './requirements.js';
export type { ContractEnv, ContractTarget } from './target.js';
export { slowLaunchCommand, SLOW_LAUNCH_APP, SLOW_LAUNCH_TITLE } from './slow-launch.js';
export { factoryOf } from './factory-of.js';
export { until } from './until.js';
