// `import { contractSuite, factoryOf } from 'hypruse/contract'` in a plugin's test: the compositor contract suite (docs/plugins.md).
export * from '@hypruse/contract-kit';
