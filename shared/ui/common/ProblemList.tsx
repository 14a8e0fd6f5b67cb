import type { ParamProblem } from "../../query/params";

/** Filter values that could not be used, shown instead of an error page. */
export function ProblemList({ problems }: { problems: ParamProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <div className="notice notice--warning" role="alert">
      <p>Some filter values were ignored:</p>
      <ul>
        {problems.map((problem) => (
          <li key={problem.param}>
            <code>{problem.param}</code> {problem.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
