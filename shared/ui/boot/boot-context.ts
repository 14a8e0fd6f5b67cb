import { createContext, useContext } from "react";
import type { BootState } from "../../config/public-config";

export const BootContext = createContext<BootState | null>(null);

/** The public runtime config and build info, identical on server and client. */
export function useBoot(): BootState {
  const boot = useContext(BootContext);
  if (!boot) throw new Error("useBoot() used outside <BootContext>");
  return boot;
}
