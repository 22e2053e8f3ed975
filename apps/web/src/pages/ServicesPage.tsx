import { useMutation, useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { toast } from "sonner";
import { ZServiceCreate, type TService } from "@ratecard/validators";
import { HelpBox } from "../components/Concepts";
import { DeleteServiceDialog } from "../components/DeleteDialogs";
import { NameDialog } from "../components/NameDialog";
import { NamedResourceListPage } from "../components/NamedResourceListPage";
import { idColumn, nameLinkColumn } from "../components/ResourceColumns";
import { useCollector, useRefreshAll } from "../hooks";
import { serviceNameAdvice, serviceNames } from "../lib/collector";
import { useTRPC } from "../trpc";

const columns = [
  nameLinkColumn<TService>((service) => (
    <Link to="/hashmap/services/$serviceId" params={{ serviceId: service.service_id }}>
      {service.name}
    </Link>
  )),
  idColumn<TService>("service", (service) => service.service_id),
];

export function ServicesPage() {
  const trpc = useTRPC();
  const navigate = useNavigate({ from: "/hashmap/services" });
  const refreshAll = useRefreshAll();
  const services = useQuery(
    trpc.hashmap.services.list.queryOptions(undefined, { select: (data) => data.services }),
  );
  const createService = useMutation(trpc.hashmap.services.create.mutationOptions());
  const [creating, setCreating] = useState(false);
  const collector = useCollector();
  const metricNames = serviceNames(collector);

  return (
    <NamedResourceListPage
      from="/hashmap/services"
      noun="service"
      plural="services"
      title="Services"
      lead="A service is one rated metric. Its fields, mappings and thresholds set its price."
      help={
        <HelpBox summary="How should a service be named?">
          <p>
            The name must equal the metric's <code>alt_name</code> in CloudKitty's metrics.yml if it
            has one, otherwise the metric's name: <code>cpu</code> with alt_name{" "}
            <code>instance</code> gives the service <code>instance</code>; <code>image.size</code>{" "}
            gives <code>image.size</code>. A service whose name matches no metric never prices
            anything.
          </p>
        </HelpBox>
      }
      renderCreate={(label) => (
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          {label}
        </button>
      )}
      query={services}
      columns={columns}
      getRowId={(service) => service.service_id}
      emptyText={
        <>
          Create a service for each metric you want to price, for example <code>instance</code> or{" "}
          <code>volume.size</code>.
        </>
      }
      renderDeleteDialog={(service, close) => (
        <DeleteServiceDialog service={service} onClose={close} onDeleted={close} />
      )}
    >
      <NameDialog
        open={creating}
        onOpenChange={setCreating}
        title="Create a service"
        description="The service is the metric to price, named as in CloudKitty's metrics.yml (its alt_name if it has one)."
        nameLabel="Service name"
        nameHint={
          metricNames.length > 0
            ? "Pick one of the metrics the collector reports, or type a name."
            : "For example instance, volume.size or image.size."
        }
        submitLabel="Create service"
        schema={ZServiceCreate}
        suggestions={metricNames}
        {...(collector && { adviseOn: (name: string) => serviceNameAdvice(collector, name) })}
        onSubmit={async (name) => {
          const service = await createService.mutateAsync({ name });
          toast.success(`Service “${service.name}” created`);
          await refreshAll();
          await navigate({
            to: "/hashmap/services/$serviceId",
            params: { serviceId: service.service_id },
          });
        }}
      />
    </NamedResourceListPage>
  );
}
