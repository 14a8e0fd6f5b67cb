/** PostgreSQL's code for a statement cancelled by statement_timeout (or by a cancel request). */
export const QUERY_CANCELED = "57014";
