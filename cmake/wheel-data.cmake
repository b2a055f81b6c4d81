# The simulator's data files in the Python package (offlab/data): the cost
# model, scenarios and sweeps that `offlab sim` and `offlab sweep` read.
install(FILES ${PROJECT_SOURCE_DIR}/sim/data/cost-model.yaml DESTINATION offlab/data)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sim/scenarios/ DESTINATION offlab/data/scenarios
        FILES_MATCHING PATTERN "*.yaml")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sim/sweeps/ DESTINATION offlab/data/sweeps
        FILES_MATCHING PATTERN "*.yaml")
