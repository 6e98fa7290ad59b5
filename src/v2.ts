import { setupV2, type V2Plugin } from './hosts/opencode-v2.js';

/**
 * The OpenCode V2 plugin (`@…/v2`), in the `Plugin.define({id, setup})` shape. Upstream `define` is the
 * identity function, so the object is exported as it is: no import of the host's packages.
 */
const LocalPtyV2: V2Plugin = {
  id: 'local-pty',
  setup: (ctx) => setupV2(ctx),
};

export default LocalPtyV2;
