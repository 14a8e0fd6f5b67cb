import { timingSafeEqual } from "node:crypto";
import type { Request } from "express";
import ipaddr from "ipaddr.js";

export interface MetricsAccess {
  /** Opens /metrics from anywhere as "Authorization: Bearer <token>". */
  token?: string;
  /** ipaddr.js range names (loopback, private, uniqueLocal, ...) or CIDR ranges allowed without the token. */
  allow: readonly string[];
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function inRanges(address: string, allow: readonly string[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return allow.some((item) => {
    if (!item.includes("/")) return item === range;
    const [network, bits] = ipaddr.parseCIDR(item);
    return network.kind() === parsed.kind() && parsed.match([network, bits] as never);
  });
}

/**
 * Whether a request may read /metrics: with the bearer token, or from an
 * allowed address. The address is the client's as Express resolves it through
 * TRUST_PROXY; a request that came through a proxy the server does not trust
 * (a Forwarded or X-Forwarded-For header, TRUST_PROXY unset) is not let in by
 * address, since the address it arrives from is the proxy's, often loopback.
 */
export function mayReadMetrics(req: Request, access: MetricsAccess): boolean {
  const header = req.get("authorization") ?? "";
  const bearer = /^Bearer (.+)$/i.exec(header)?.[1];
  if (access.token && bearer) return sameSecret(bearer, access.token);
  const proxied = req.get("x-forwarded-for") !== undefined || req.get("forwarded") !== undefined;
  if (proxied && !req.app.get("trust proxy fn")?.call(null, req.socket.remoteAddress ?? "", 0)) return false;
  return inRanges(req.ip ?? "", access.allow);
}
