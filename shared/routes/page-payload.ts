/** The body of `_payload.json`: one of three outcomes of loading a page. */
export type PagePayload =
  { kind: "data"; data: unknown } | { kind: "redirect"; location: string; status: number } | { kind: "error"; error: { statusCode: number; message: string } };
