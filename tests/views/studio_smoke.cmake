# Runs scalify-studio --screenshot under xvfb-run and checks that it wrote a non-empty PNG.
# cmake -DSTUDIO=… -DREF=… -DDIST=… -DOUT=… -P studio_smoke.cmake
file(REMOVE "${OUT}")
execute_process(COMMAND xvfb-run -a "${STUDIO}" --screenshot "${OUT}" "${REF}" "${DIST}"
                RESULT_VARIABLE rc TIMEOUT 200)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "scalify-studio --screenshot exited with ${rc}")
endif()
if(NOT EXISTS "${OUT}")
  message(FATAL_ERROR "no screenshot at ${OUT}")
endif()
file(SIZE "${OUT}" size)
if(size EQUAL 0)
  message(FATAL_ERROR "the screenshot ${OUT} is empty")
endif()
message(STATUS "screenshot ${OUT}: ${size} bytes")
