/*
 * The NNAPI Support Library entry point of libneuralnetworks.so:
 * ANeuralNetworks_getSLDriverImpl returns the driver table of feature level 5
 * (NnApiSLDriverImplFL5) that Android's Support Library shim serves as an
 * NNAPI AIDL service. Written for vknn from the Support Library's
 * documentation: the structure layout (member order and types), the
 * SL_ types and the feature-level codes are those of Android's
 * NeuralNetworksSupportLibraryImpl.h.
 */
#ifndef VKNN_SL_H
#define VKNN_SL_H

#include "android/NeuralNetworks.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  ANEURALNETWORKS_FEATURE_LEVEL_4 = 30, /* Android 11 */
  ANEURALNETWORKS_FEATURE_LEVEL_5 = 31, /* Android 12 */
};

typedef struct {
  float execTime;
  float powerUsage;
} SL_ANeuralNetworksPerformanceInfo;

typedef struct {
  int32_t operandType;
  SL_ANeuralNetworksPerformanceInfo performanceInfo;
} SL_ANeuralNetworksOperandPerformanceInfo;

typedef struct {
  uint32_t byteSize;
  uint16_t type;
  bool isTensor;
} SL_ANeuralNetworksExtensionOperandTypeInformation;

typedef enum {
  SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_RELAXED_SCALAR = 0,
  SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_RELAXED_TENSOR = 1,
  SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_IF = 2,
  SL_ANEURALNETWORKS_CAPABILITIES_PERFORMANCE_WHILE = 3,
} SL_ANeuralNetworksPerformanceInfoCode;

typedef struct {
  int64_t implFeatureLevel;
} NnApiSLDriverImpl;

/* Feature level 5 additions of the NDK, implemented for the table (and
 * exported): preferred alignment and padding of io buffers, padded io
 * buffers, reusable executions, the runtime's feature level. */
int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(const ANeuralNetworksCompilation *compilation,
                                                                   uint32_t index, uint32_t *alignment);
int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(const ANeuralNetworksCompilation *compilation,
                                                                    uint32_t index, uint32_t *alignment);
int ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(const ANeuralNetworksCompilation *compilation,
                                                                 uint32_t index, uint32_t *padding);
int ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(const ANeuralNetworksCompilation *compilation,
                                                                  uint32_t index, uint32_t *padding);
int ANeuralNetworksExecution_enableInputAndOutputPadding(ANeuralNetworksExecution *execution, bool enable);
int ANeuralNetworksExecution_setReusable(ANeuralNetworksExecution *execution, bool reusable);
int64_t ANeuralNetworks_getRuntimeFeatureLevel(void);

typedef struct NnApiSLDriverImplFL5 {
  NnApiSLDriverImpl base; /* implFeatureLevel: ANEURALNETWORKS_FEATURE_LEVEL_5 */
  int (*ANeuralNetworksBurst_create)(ANeuralNetworksCompilation *, ANeuralNetworksBurst **);
  void (*ANeuralNetworksBurst_free)(ANeuralNetworksBurst *);
  int (*ANeuralNetworksCompilation_createForDevices)(ANeuralNetworksModel *, const ANeuralNetworksDevice *const *,
                                                     uint32_t, ANeuralNetworksCompilation **);
  int (*ANeuralNetworksCompilation_finish)(ANeuralNetworksCompilation *);
  void (*ANeuralNetworksCompilation_free)(ANeuralNetworksCompilation *);
  int (*ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput)(const ANeuralNetworksCompilation *, uint32_t,
                                                                        uint32_t *);
  int (*ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput)(const ANeuralNetworksCompilation *, uint32_t,
                                                                         uint32_t *);
  int (*ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput)(const ANeuralNetworksCompilation *, uint32_t,
                                                                      uint32_t *);
  int (*ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput)(const ANeuralNetworksCompilation *, uint32_t,
                                                                       uint32_t *);
  int (*ANeuralNetworksCompilation_setCaching)(ANeuralNetworksCompilation *, const char *, const uint8_t *);
  int (*ANeuralNetworksCompilation_setPreference)(ANeuralNetworksCompilation *, int32_t);
  int (*ANeuralNetworksCompilation_setPriority)(ANeuralNetworksCompilation *, int);
  int (*ANeuralNetworksCompilation_setTimeout)(ANeuralNetworksCompilation *, uint64_t);
  int (*ANeuralNetworksDevice_getExtensionSupport)(const ANeuralNetworksDevice *, const char *, bool *);
  int (*ANeuralNetworksDevice_getFeatureLevel)(const ANeuralNetworksDevice *, int64_t *);
  int (*ANeuralNetworksDevice_getName)(const ANeuralNetworksDevice *, const char **);
  int (*ANeuralNetworksDevice_getType)(const ANeuralNetworksDevice *, int32_t *);
  int (*ANeuralNetworksDevice_getVersion)(const ANeuralNetworksDevice *, const char **);
  int (*ANeuralNetworksDevice_wait)(const ANeuralNetworksDevice *);
  int (*ANeuralNetworksEvent_createFromSyncFenceFd)(int, ANeuralNetworksEvent **);
  void (*ANeuralNetworksEvent_free)(ANeuralNetworksEvent *);
  int (*ANeuralNetworksEvent_getSyncFenceFd)(const ANeuralNetworksEvent *, int *);
  int (*ANeuralNetworksEvent_wait)(ANeuralNetworksEvent *);
  int (*ANeuralNetworksExecution_burstCompute)(ANeuralNetworksExecution *, ANeuralNetworksBurst *);
  int (*ANeuralNetworksExecution_compute)(ANeuralNetworksExecution *);
  int (*ANeuralNetworksExecution_create)(ANeuralNetworksCompilation *, ANeuralNetworksExecution **);
  int (*ANeuralNetworksExecution_enableInputAndOutputPadding)(ANeuralNetworksExecution *, bool);
  void (*ANeuralNetworksExecution_free)(ANeuralNetworksExecution *);
  int (*ANeuralNetworksExecution_getDuration)(const ANeuralNetworksExecution *, int32_t, uint64_t *);
  int (*ANeuralNetworksExecution_getOutputOperandDimensions)(ANeuralNetworksExecution *, int32_t, uint32_t *);
  int (*ANeuralNetworksExecution_getOutputOperandRank)(ANeuralNetworksExecution *, int32_t, uint32_t *);
  int (*ANeuralNetworksExecution_setInput)(ANeuralNetworksExecution *, int32_t, const ANeuralNetworksOperandType *,
                                           const void *, size_t);
  int (*ANeuralNetworksExecution_setInputFromMemory)(ANeuralNetworksExecution *, int32_t,
                                                     const ANeuralNetworksOperandType *, const ANeuralNetworksMemory *,
                                                     size_t, size_t);
  int (*ANeuralNetworksExecution_setLoopTimeout)(ANeuralNetworksExecution *, uint64_t);
  int (*ANeuralNetworksExecution_setMeasureTiming)(ANeuralNetworksExecution *, bool);
  int (*ANeuralNetworksExecution_setOutput)(ANeuralNetworksExecution *, int32_t, const ANeuralNetworksOperandType *,
                                            void *, size_t);
  int (*ANeuralNetworksExecution_setOutputFromMemory)(ANeuralNetworksExecution *, int32_t,
                                                      const ANeuralNetworksOperandType *, const ANeuralNetworksMemory *,
                                                      size_t, size_t);
  int (*ANeuralNetworksExecution_setReusable)(ANeuralNetworksExecution *, bool);
  int (*ANeuralNetworksExecution_setTimeout)(ANeuralNetworksExecution *, uint64_t);
  int (*ANeuralNetworksExecution_startComputeWithDependencies)(ANeuralNetworksExecution *,
                                                               const ANeuralNetworksEvent *const *, uint32_t, uint64_t,
                                                               ANeuralNetworksEvent **);
  int (*ANeuralNetworksMemoryDesc_addInputRole)(ANeuralNetworksMemoryDesc *, const ANeuralNetworksCompilation *,
                                                uint32_t, float);
  int (*ANeuralNetworksMemoryDesc_addOutputRole)(ANeuralNetworksMemoryDesc *, const ANeuralNetworksCompilation *,
                                                 uint32_t, float);
  int (*ANeuralNetworksMemoryDesc_create)(ANeuralNetworksMemoryDesc **);
  int (*ANeuralNetworksMemoryDesc_finish)(ANeuralNetworksMemoryDesc *);
  void (*ANeuralNetworksMemoryDesc_free)(ANeuralNetworksMemoryDesc *);
  int (*ANeuralNetworksMemoryDesc_setDimensions)(ANeuralNetworksMemoryDesc *, uint32_t, const uint32_t *);
  int (*ANeuralNetworksMemory_copy)(const ANeuralNetworksMemory *, const ANeuralNetworksMemory *);
  int (*ANeuralNetworksMemory_createFromAHardwareBuffer)(const AHardwareBuffer *, ANeuralNetworksMemory **);
  int (*ANeuralNetworksMemory_createFromDesc)(const ANeuralNetworksMemoryDesc *, ANeuralNetworksMemory **);
  int (*ANeuralNetworksMemory_createFromFd)(size_t, int, int, size_t, ANeuralNetworksMemory **);
  void (*ANeuralNetworksMemory_free)(ANeuralNetworksMemory *);
  int (*ANeuralNetworksModel_addOperand)(ANeuralNetworksModel *, const ANeuralNetworksOperandType *);
  int (*ANeuralNetworksModel_addOperation)(ANeuralNetworksModel *, ANeuralNetworksOperationType, uint32_t,
                                           const uint32_t *, uint32_t, const uint32_t *);
  int (*ANeuralNetworksModel_create)(ANeuralNetworksModel **);
  int (*ANeuralNetworksModel_finish)(ANeuralNetworksModel *);
  void (*ANeuralNetworksModel_free)(ANeuralNetworksModel *);
  int (*ANeuralNetworksModel_getExtensionOperandType)(ANeuralNetworksModel *, const char *, uint16_t, int32_t *);
  int (*ANeuralNetworksModel_getExtensionOperationType)(ANeuralNetworksModel *, const char *, uint16_t,
                                                        ANeuralNetworksOperationType *);
  int (*ANeuralNetworksModel_getSupportedOperationsForDevices)(const ANeuralNetworksModel *,
                                                               const ANeuralNetworksDevice *const *, uint32_t, bool *);
  int (*ANeuralNetworksModel_identifyInputsAndOutputs)(ANeuralNetworksModel *, uint32_t, const uint32_t *, uint32_t,
                                                       const uint32_t *);
  int (*ANeuralNetworksModel_relaxComputationFloat32toFloat16)(ANeuralNetworksModel *, bool);
  int (*ANeuralNetworksModel_setOperandExtensionData)(ANeuralNetworksModel *, int32_t, const void *, size_t);
  int (*ANeuralNetworksModel_setOperandSymmPerChannelQuantParams)(ANeuralNetworksModel *, int32_t,
                                                                  const ANeuralNetworksSymmPerChannelQuantParams *);
  int (*ANeuralNetworksModel_setOperandValue)(ANeuralNetworksModel *, int32_t, const void *, size_t);
  int (*ANeuralNetworksModel_setOperandValueFromMemory)(ANeuralNetworksModel *, int32_t, const ANeuralNetworksMemory *,
                                                        size_t, size_t);
  int (*ANeuralNetworksModel_setOperandValueFromModel)(ANeuralNetworksModel *, int32_t, const ANeuralNetworksModel *);
  uint64_t (*ANeuralNetworks_getDefaultLoopTimeout)(void);
  int (*ANeuralNetworks_getDevice)(uint32_t, ANeuralNetworksDevice **);
  int (*ANeuralNetworks_getDeviceCount)(uint32_t *);
  uint64_t (*ANeuralNetworks_getMaximumLoopTimeout)(void);
  int64_t (*ANeuralNetworks_getRuntimeFeatureLevel)(void);
  int (*SL_ANeuralNetworksCompilation_setCachingFromFds)(ANeuralNetworksCompilation *, const int *, const uint32_t,
                                                         const int *, const uint32_t, const uint8_t *);
  int (*SL_ANeuralNetworksDevice_getNumberOfCacheFilesNeeded)(const ANeuralNetworksDevice *, uint32_t *, uint32_t *);
  int (*SL_ANeuralNetworksDevice_getPerformanceInfo)(const ANeuralNetworksDevice *, int32_t,
                                                     SL_ANeuralNetworksPerformanceInfo *);
  int (*SL_ANeuralNetworksDevice_forEachOperandPerformanceInfo)(
      const ANeuralNetworksDevice *, void *, void (*)(SL_ANeuralNetworksOperandPerformanceInfo, void *));
  int (*SL_ANeuralNetworksDevice_getVendorExtensionCount)(const ANeuralNetworksDevice *, uint32_t *);
  int (*SL_ANeuralNetworksDevice_getVendorExtensionName)(const ANeuralNetworksDevice *, uint32_t, const char **);
  int (*SL_ANeuralNetworksDevice_forEachVendorExtensionOperandTypeInformation)(
      const ANeuralNetworksDevice *, uint32_t, void *, void (*)(SL_ANeuralNetworksExtensionOperandTypeInformation, void *));
} NnApiSLDriverImplFL5;

/* The table, filled; it lives as long as the library. */
NnApiSLDriverImpl *ANeuralNetworks_getSLDriverImpl(void);

#ifdef __cplusplus
}
#endif
#endif /* VKNN_SL_H */
