// `/project/{projectId}/observations`: the one Observations view when this person's views read the
// v4 model (`me.views`), else the v3 Observations tab over the legacy tables.

import { useMe } from "../../app/session";
import { LegacyPage } from "../legacy/LegacyPage";
import { ObservationsView } from "./ObservationsView";

export default function ObservationsPage() {
  const me = useMe();
  return me.views === "v3" ? <LegacyPage tab="observations" /> : <ObservationsView />;
}
