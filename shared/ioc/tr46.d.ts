// tr46 ships no type declarations; this covers the one function we call.
declare module "tr46" {
  export interface ToASCIIOptions {
    checkHyphens?: boolean;
    checkBidi?: boolean;
    checkJoiners?: boolean;
    useSTD3ASCIIRules?: boolean;
    verifyDNSLength?: boolean;
    transitionalProcessing?: boolean;
    ignoreInvalidPunycode?: boolean;
  }
  /** Returns null when the name is not a valid IDNA domain name. */
  export function toASCII(domainName: string, options?: ToASCIIOptions): string | null;
}
