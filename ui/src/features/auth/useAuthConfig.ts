import { useEffect, useState } from "react";

import type { AuthConfig } from "../../api/types";
import { ui } from "../../api/ui";

/** Whether sign-up is on; `null` while asking (and if the server cannot say, assume it is on:
 * the server still refuses a sign-up when it is off). */
export function useAuthConfig(): AuthConfig | null {
  const [config, setConfig] = useState<AuthConfig | null>(null);
  useEffect(() => {
    let live = true;
    ui.authConfig()
      .then((c) => live && setConfig(c))
      .catch(() => live && setConfig({ signUpEnabled: true }));
    return () => {
      live = false;
    };
  }, []);
  return config;
}
