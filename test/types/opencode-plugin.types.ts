/**
 * Type-level checks of the host adapters against the pinned host package (`@opencode-ai/plugin`, a devDependency
 * pinned to the OpenCode version we serve). The adapters declare the host API structurally, so that the package
 * has no runtime dependency on OpenCode's own packages; this file, compiled by `npm run typecheck` and never run,
 * is what catches a drift between those declarations and the published types.
 */
import type { Hooks, Plugin, PluginInput, ToolContext } from '@opencode-ai/plugin';
import type { Plugin as PublishedV2Plugin } from '@opencode-ai/plugin/v2/promise';
import type { V1Client, V1PluginInput, V1ToolContext } from '../../src/hosts/opencode-v1.js';
import LocalPtyPlugin from '../../src/index.js';
import LocalPtyV2 from '../../src/v2.js';

// V1: the default export is a `Plugin`. Function parameters are checked contravariantly, so this also proves that
// OpenCode's real `PluginInput` (its SDK client included) gives everything `V1PluginInput` asks for, and the hooks
// we return are `Hooks` (the five tools as `ToolDefinition`s, `event`, `dispose`).
LocalPtyPlugin satisfies Plugin;

// The same, part by part, so that a drift names the part that drifted.
type Assignable<From, To> = [From] extends [To] ? true : false;
const expectTrue = <T extends true>(_proof?: T): void => undefined;
expectTrue<Assignable<PluginInput, V1PluginInput>>();
expectTrue<Assignable<PluginInput['client'], V1Client>>();
expectTrue<Assignable<ToolContext, V1ToolContext>>();
expectTrue<Assignable<Awaited<ReturnType<typeof LocalPtyPlugin>>, Hooks>>();

// V2: the published 1.18.33 `@opencode-ai/plugin/v2/promise` `PluginContext` has none of the domains the V2
// adapter uses (tool, session, permission, event, location: they exist only in OpenCode's unreleased sources, see
// docs/HOSTS.md), so there is nothing to satisfy yet. This records that it does NOT fit today; once a pinned
// version publishes those domains and the adapter fits, this line fails to compile, which is the cue to replace
// it with `LocalPtyV2 satisfies PublishedV2Plugin`.
// @ts-expect-error the published V2 plugin context lacks the tool/session/permission domains the adapter needs
LocalPtyV2 satisfies PublishedV2Plugin;
