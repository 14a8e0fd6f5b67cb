import type { Params } from "react-router";
import { Link, useLoaderData } from "react-router";
import type { IocDetailData } from "../../types/pages";

export function meta(data: unknown, params: Params) {
  const value = (data as IocDetailData | undefined)?.value ?? params.ioc ?? "indicator";
  return {
    title: value,
    description: `What the tracked feeds know about the indicator ${value}.`,
  };
}

export function Component() {
  const { value, type } = useLoaderData() as IocDetailData;
  return (
    <section>
      <h1 className="mono">{value}</h1>
      <p>Type: {type}</p>
      <p>
        <Link to="/ioc-radar">Back to the IOC radar</Link>
      </p>
    </section>
  );
}
