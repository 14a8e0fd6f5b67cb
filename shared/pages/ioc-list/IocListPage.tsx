import { Link, useLoaderData } from "react-router";
import type { IocListData } from "../../types/pages";

export function meta() {
  return {
    title: "IOC radar",
    description: "Indicators of compromise seen by the public feeds, newest first, with sources, malware families and benign-list flags.",
  };
}

export function Component() {
  const { total } = useLoaderData() as IocListData;
  return (
    <section>
      <h1>IOC radar</h1>
      <p>{total.toLocaleString("en-US")} indicators tracked.</p>
      <p>
        <Link to="/cve-radar">Go to the CVE radar</Link>
      </p>
    </section>
  );
}
