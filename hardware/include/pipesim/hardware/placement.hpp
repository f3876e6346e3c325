#pragma once
// Which GPU (and node) runs worker w of pipeline replica r: decides each transfer's link tier.
// With tensor and context parallelism a worker is a group of t·c GPUs, placed innermost in
// Megatron-Core's order, tensor then context (Narayanan et al., SC'21, §3.3: the TP group
// shares a node's NVLink domain; Megatron-Core parallel_state, order "tp-cp-ep-dp-pp"): worker
// slot k = the GPUs k·t·c … (k+1)·t·c − 1, so a node holds gpus_per_node / (t·c) workers, or a
// worker spans t·c / gpus_per_node nodes. gpu() is the group's first GPU; each GPU of the
// group has its own NIC where the node has one per GPU.

namespace pipesim::hardware {

enum class PlacementMode {
  PipelineMajor,  //!< a replica's D workers on consecutive GPUs: gpu = r·D + w
  DataMajor,      //!< a stage's W replicas on consecutive GPUs: gpu = w·W + r
};

struct Placement {
  int workers = 1;   //!< D
  int replicas = 1;  //!< W
  int gpus_per_node = 1;
  int nics_per_node = 1;
  PlacementMode mode = PlacementMode::PipelineMajor;
  int tensor_parallel = 1;   //!< t (must divide gpus_per_node)
  int context_parallel = 1;  //!< c (t·c divides gpus_per_node or is a multiple of it)

  int gpus_per_worker() const { return tensor_parallel * context_parallel; }
  int gpu(int replica, int worker) const {
    const int slot = mode == PlacementMode::PipelineMajor ? replica * workers + worker
                                                          : worker * replicas + replica;
    return slot * gpus_per_worker();
  }
  int node(int replica, int worker) const { return gpu(replica, worker) / gpus_per_node; }
  //! The node of the worker's last GPU (its first node unless t·c exceeds a node).
  int last_node(int replica, int worker) const {
    return (gpu(replica, worker) + gpus_per_worker() - 1) / gpus_per_node;
  }
  //! The inter-node NIC the GPU uses: its node's NIC number (local GPU / GPUs per NIC).
  int nic(int replica, int worker) const {
    const int g = gpu(replica, worker);
    return node(replica, worker) * nics_per_node +
           (g % gpus_per_node) / (gpus_per_node / nics_per_node);
  }
  //! How many replicas' copies of `worker` share replica 0's NIC of that worker (they send the
  //! same messages at the same time).
  int replicas_on_nic(int worker) const {
    int count = 0;
    for (int r = 0; r < replicas; ++r)
      count += nic(r, worker) == nic(0, worker) ? 1 : 0;
    return count;
  }
};

}  // namespace pipesim::hardware
