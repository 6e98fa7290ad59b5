import { createV1Plugin, type V1Hooks, type V1PluginInput } from './hosts/opencode-v1.js';

/**
 * The OpenCode plugin. OpenCode calls every function this module exports (identical ones once), so it
 * exports this function only: as `LocalPtyPlugin` and as the default.
 */
export const LocalPtyPlugin = (input: V1PluginInput): Promise<V1Hooks> => createV1Plugin(input);

export default LocalPtyPlugin;
