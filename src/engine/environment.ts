import { userInfo } from 'node:os';
import { WRAPPER_SHELL_PATH } from './system-paths.js';

/** The PTYs' PATH: commands named without a slash are looked up here. */
export const SAFE_PATH = '/usr/local/bin:/usr/bin:/bin';
const TERMINAL_TYPE = 'xterm-256color';
/** The command's locale. */
export const COMMAND_LOCALE = 'C.UTF-8';

let hostUser: { readonly homedir: string; readonly username: string } | undefined;

/**
 * The whole environment a PTY gets. Nothing is inherited from the host (its API keys, tokens, proxies):
 * the user's identity comes from the OS user database, not from the host's possibly altered env.
 */
export function fixedEnvironment(): Record<string, string> {
  // Looked up once: the host's own user does not change while it runs, and every spawn needs it.
  hostUser ??= userInfo();
  const user = hostUser;
  return {
    HOME: user.homedir,
    USER: user.username,
    LOGNAME: user.username,
    LANG: COMMAND_LOCALE,
    PATH: SAFE_PATH,
    SHELL: WRAPPER_SHELL_PATH,
    TERM: TERMINAL_TYPE,
  };
}
