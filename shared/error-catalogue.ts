/** The error screen's catalogue (app-shell spec, section 8). */
export interface ErrorDescription {
  statusCode: number;
  title: string;
  description: string;
}

export function describeError(statusCode: number, supportEmail: string): ErrorDescription {
  if (statusCode === 404) {
    return {
      statusCode,
      title: "Page Not Found",
      description: "The page might have been removed, renamed or temporarily unavailable.",
    };
  }
  if (statusCode === 429) {
    return {
      statusCode,
      title: "Too many requests",
      description: "The rate limit for this endpoint was exceeded; try again later.",
    };
  }
  return {
    statusCode,
    title: "Something went wrong",
    description: `We are sorry, an error occurred while processing your request. Please try again later, or contact ${supportEmail} support if it persists.`,
  };
}

export function pageNotFoundMessage(path: string): string {
  return `Page not found: ${path}`;
}
