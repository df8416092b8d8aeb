// What a person who is not an instance admin sees on an instance admin's page.

import { EmptyState } from "../../components/States";

export function NotAllowed({ what }: { what: string }) {
  return (
    <div className="page">
      <EmptyState title="Not allowed">
        <p>
          Only instance admins can see {what}. The first user of this deployment is one, and can make others instance
          admins under <strong>Instance admins</strong> in their account menu.
        </p>
      </EmptyState>
    </div>
  );
}
