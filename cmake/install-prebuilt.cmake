# The Python package from an existing build tree: scripts/setup.sh builds
# build/ once (with OFFLAB_BUILD_PYTHON=ON) and installs the package with
#   pip install --config-settings=cmake.define.OFFLAB_PREBUILT_DIR=$PWD/build .
# so the wheel takes that tree's _core module and programs instead of compiling
# the C++ sources a second time. The files are copied into the wheel: the
# installed package does not depend on build/ afterwards.
find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)

set(OFFLAB_PREBUILT_CORE_NAME _core.${Python_SOABI}${CMAKE_SHARED_MODULE_SUFFIX})
set(OFFLAB_PREBUILT_CORE ${OFFLAB_PREBUILT_DIR}/python/offlab/${OFFLAB_PREBUILT_CORE_NAME})
if(NOT EXISTS ${OFFLAB_PREBUILT_CORE})
  message(FATAL_ERROR "OFFLAB_PREBUILT_DIR: ${OFFLAB_PREBUILT_CORE} is missing: build the tree "
                      "with -DOFFLAB_BUILD_PYTHON=ON for this Python (${Python_EXECUTABLE}) first")
endif()
install(FILES ${OFFLAB_PREBUILT_CORE} DESTINATION offlab
        PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
                    WORLD_EXECUTE)

# The programs the package runs (offlab sim, offlab hw-replay), where the tree has them.
set(OFFLAB_PREBUILT_PROGRAMS)
foreach(prog offlab-sim offlab-hw-replay)
  if(EXISTS ${OFFLAB_PREBUILT_DIR}/bin/${prog})
    list(APPEND OFFLAB_PREBUILT_PROGRAMS ${OFFLAB_PREBUILT_DIR}/bin/${prog})
  endif()
endforeach()
if(NOT EXISTS ${OFFLAB_PREBUILT_DIR}/bin/offlab-sim)
  message(FATAL_ERROR "OFFLAB_PREBUILT_DIR: ${OFFLAB_PREBUILT_DIR}/bin/offlab-sim is missing")
endif()
install(PROGRAMS ${OFFLAB_PREBUILT_PROGRAMS} DESTINATION offlab/bin)
include(${CMAKE_CURRENT_LIST_DIR}/wheel-data.cmake)

# build/ is RelWithDebInfo: the copies are stripped as scikit-build-core strips
# the targets it builds itself (install.strip, `cmake --install --strip`).
if(CMAKE_STRIP)
  set(OFFLAB_STRIPPED offlab/${OFFLAB_PREBUILT_CORE_NAME})
  foreach(prog ${OFFLAB_PREBUILT_PROGRAMS})
    get_filename_component(name ${prog} NAME)
    list(APPEND OFFLAB_STRIPPED offlab/bin/${name})
  endforeach()
  foreach(file ${OFFLAB_STRIPPED})
    install(CODE "if(CMAKE_INSTALL_DO_STRIP)
  execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-unneeded \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${file}\")
endif()")
  endforeach()
endif()
