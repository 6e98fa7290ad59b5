import type { ListResult, SpawnResult } from '../../protocol/tool-results.js';
import { expectEqual } from '../expect.js';
import type { Outcome } from '../smoke-host.js';
import type { Scenario } from '../scenario.js';
import { MAX_SESSIONS, MAX_SESSIONS_PER_OWNER } from '../../limits.js';

const FIRST_WAVE = 20;
const OTHER_SESSIONS = 3;

function tally(outcomes: readonly Outcome<SpawnResult>[]): { succeeded: number; refused: Record<string, number> } {
  const refused: Record<string, number> = {};
  for (const o of outcomes) if (!o.ok) refused[o.code] = (refused[o.code] ?? 0) + 1;
  return { succeeded: outcomes.filter((o) => o.ok).length, refused };
}

export const reservations: Scenario = {
  name: 'reservations',
  summary: `${FIRST_WAVE} concurrent spawns from one session: exactly ${MAX_SESSIONS_PER_OWNER} start; then the ${MAX_SESSIONS}-in-all limit holds across sessions`,
  async run(h) {
    const host = await h.host();
    const spawnMany = (sessionID: string, n: number) => {
      const s = host.session(sessionID);
      return Array.from({ length: n }, (_, i) =>
        s.attempt<SpawnResult>('pty_spawn', { command: 'sleep', args: ['30'], description: `${sessionID} #${i}` }),
      );
    };
    const first = tally(await Promise.all(spawnMany('ses_smoke_res_0', FIRST_WAVE)));
    expectEqual(
      first,
      { succeeded: MAX_SESSIONS_PER_OWNER, refused: { limit: FIRST_WAVE - MAX_SESSIONS_PER_OWNER } },
      `outcomes of ${FIRST_WAVE} concurrent spawns from one session`,
    );
    const own = await host.session('ses_smoke_res_0').call<ListResult>('pty_list', {});
    expectEqual(
      own.ptys.map((p) => p.status),
      Array(MAX_SESSIONS_PER_OWNER).fill('running'),
      'the session’s PTYs',
    );

    // Three more sessions at once, each asking for its full share: only MAX_SESSIONS in all may exist.
    const wave = Array.from({ length: OTHER_SESSIONS }, (_, i) =>
      spawnMany(`ses_smoke_res_${i + 1}`, MAX_SESSIONS_PER_OWNER),
    ).flat();
    const second = tally(await Promise.all(wave));
    const room = MAX_SESSIONS - MAX_SESSIONS_PER_OWNER;
    expectEqual(
      second,
      { succeeded: room, refused: { limit: wave.length - room } },
      `outcomes of ${wave.length} concurrent spawns from ${OTHER_SESSIONS} more sessions`,
    );
  },
};
