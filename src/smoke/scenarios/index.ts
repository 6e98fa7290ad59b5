import type { Scenario } from '../scenario.js';
import { argumentsScenario } from './arguments.js';
import { deleteInflight } from './delete-inflight.js';
import { dispose } from './dispose.js';
import { escalation } from './escalation.js';
import { exitNotify } from './exit-notify.js';
import { interactive } from './interactive.js';
import { lingering } from './lingering.js';
import { ownership } from './ownership.js';
import { paging } from './paging.js';
import { permissions } from './permissions.js';
import { regexBounds } from './regex-bounds.js';
import { reservations } from './reservations.js';
import { resourceBounds } from './resource-bounds.js';
import { timeout } from './timeout.js';
import { toolNames } from './tool-names.js';
import { utf8Split } from './utf8-split.js';
import { wait } from './wait.js';
import { watch } from './watch.js';
import { worm } from './worm.js';

/** Every scenario, in the order they run. */
export const SCENARIOS: readonly Scenario[] = [
  toolNames,
  permissions,
  ownership,
  interactive,
  exitNotify,
  wait,
  watch,
  timeout,
  escalation,
  lingering,
  worm,
  deleteInflight,
  reservations,
  argumentsScenario,
  utf8Split,
  paging,
  regexBounds,
  resourceBounds,
  dispose,
];

export function scenarioNamed(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}
