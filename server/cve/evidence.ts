/** Exploit rows that count as public exploit evidence (Trickest's plain references do not). */
export const EXPLOIT_KINDS = ["poc-repository", "exploit-reference"] as const;
